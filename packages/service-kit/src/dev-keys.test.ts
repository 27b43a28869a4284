import fs, { mkdtempSync, readFileSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevSecretError, loadOrCreateDevSecret } from './dev-keys';

describe('loadOrCreateDevSecret', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dev-keys-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when the file is missing, then a value is generated, written whole (0600, one line) and read back the same on the next start', () => {
    const file = join(dir, 'data', 'secrets-key');
    const value = loadOrCreateDevSecret(file, () => 'dev1:generated', undefined, 'SECRETS_KEY');
    expect(value).toBe('dev1:generated');
    expect(readFileSync(file, 'utf8')).toBe('dev1:generated\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'data'))).toEqual(['secrets-key']); // no temporary file left
    const again = loadOrCreateDevSecret(file, () => 'dev1:another', undefined, 'SECRETS_KEY');
    expect(again).toBe('dev1:generated');
  });

  it('when it creates the file, then the file and its directory are flushed to disk before the value is used', () => {
    if (process.platform !== 'linux') return; // the flushed paths are read from /proc
    const flushed: string[] = [];
    const fsync = fs.fsyncSync;
    jest.spyOn(fs, 'fsyncSync').mockImplementation((fd) => {
      flushed.push(readlinkSync(`/proc/self/fd/${fd}`));
      fsync(fd);
    });
    const file = join(dir, 'secrets-key');
    loadOrCreateDevSecret(file, () => 'dev1:generated');
    // The temporary file (its content), then the directory (its new name).
    expect(flushed).toHaveLength(2);
    expect(flushed[0]).toMatch(/\/\.secrets-key\.\d+\.[0-9a-f]{8}\.tmp$/);
    expect(flushed[1]).toBe(dir);
  });

  it.each([
    ['empty', '', /secrets-key is empty/],
    ['cut short', 'dev1:3q2+7w', /secrets-key is cut short \(no final newline\)/],
    ['zero-filled', '\0\0\0\0\0\0\0\0', /secrets-key is cut short/],
  ])(
    'when the file is there but %s (a crash mid-write), then starting fails naming it, and no other value is made',
    (_, content, message) => {
      const file = join(dir, 'secrets-key');
      writeFileSync(file, content);
      const generate = jest.fn(() => 'dev1:another');
      expect(() => loadOrCreateDevSecret(file, generate, undefined, 'SECRETS_KEY')).toThrow(DevSecretError);
      expect(() => loadOrCreateDevSecret(file, generate, undefined, 'SECRETS_KEY')).toThrow(message);
      expect(() => loadOrCreateDevSecret(file, generate, undefined, 'SECRETS_KEY')).toThrow(
        /set SECRETS_KEY yourself; deleting the file makes a new one/,
      );
      expect(generate).not.toHaveBeenCalled();
      expect(readFileSync(file, 'utf8')).toBe(content);
    },
  );

  it('when another process creates the file while this one generates, then the first value written is kept and used by both', () => {
    const file = join(dir, 'secrets-key');
    const value = loadOrCreateDevSecret(file, () => {
      writeFileSync(file, 'dev1:first\n'); // the other process, between the check and the write
      return 'dev1:second';
    });
    expect(value).toBe('dev1:first');
    expect(readFileSync(file, 'utf8')).toBe('dev1:first\n');
    expect(readdirSync(dir)).toEqual(['secrets-key']);
  });
});
