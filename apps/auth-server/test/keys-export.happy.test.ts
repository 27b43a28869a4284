// `pnpm admin keys:export-public` for verifiers that keep PEM files instead of reading the JWKS: the current
// key, any published key by its kid, or all of them in one file. The runbook's order (export --all, then
// rotate) leaves such a verifier holding the key that signs after the rotation.
import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { thumbprintOf } from '../src/keys';
import { ADMIN_TOKEN, type ListeningHarness, admin, createClient, startListeningHarness } from './helpers';

const HOUR = 3600_000;

/** The kids of the PEM blocks of a file, each computed from the key (its RFC 7638 thumbprint). */
function kidsIn(pem: string): string[] {
  const blocks = pem.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----\n/g) ?? [];
  expect(blocks.join('')).toBe(pem);
  return blocks.map((b) =>
    thumbprintOf(createPublicKey(b).export({ format: 'jwk' }) as { e: string; n: string }),
  );
}

describe('admin keys:export-public', () => {
  let h: ListeningHarness;
  let dir: string;

  beforeAll(async () => {
    h = await startListeningHarness();
    dir = mkdtempSync(join(tmpdir(), 'auth-export-'));
    await createClient(h, { base: 'acme', password: 'correct-horse-1' }).expect(201);
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function exportKeys(name: string, ...flags: string[]): Promise<{ pem: string; stdout: string }> {
    const out = join(dir, name);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        join(__dirname, '..', 'src', 'cli.ts'),
        'keys:export-public',
        '--out',
        out,
        ...flags,
      ],
      { env: { ...process.env, NODE_OPTIONS: '', AUTH_URL: h.url, AUTH_ADMIN_TOKEN: ADMIN_TOKEN } },
    );
    return { pem: readFileSync(out, 'utf8'), stdout };
  }

  const statusOf = (status: string) => h.services.keys.publishedKeys().find((k) => k.status === status)!.kid;

  it('when run without --kid or --all, then the file is the current key alone', async () => {
    const { pem } = await exportKeys('current.pem');
    expect(kidsIn(pem)).toEqual([statusOf('current')]);
  });

  it('when --kid names the next key, then the file is that key', async () => {
    const next = statusOf('next');
    const { pem, stdout } = await exportKeys('next.pem', '--kid', next);
    expect(kidsIn(pem)).toEqual([next]);
    expect(stdout).toContain(`${next} (next)`);
  });

  it('when --kid names no published key, then it fails and says so', async () => {
    await expect(exportKeys('none.pem', '--kid', 'no-such-kid')).rejects.toMatchObject({
      stderr: expect.stringContaining('no published signing key "no-such-kid"'),
    });
  });

  it('when --all is exported before a rotation, then the token signed after the rotation verifies with a key of the file whose thumbprint is its kid', async () => {
    const { pem } = await exportKeys('all.pem', '--all');
    const kids = kidsIn(pem);
    expect(kids.sort()).toEqual([statusOf('current'), statusOf('next')].sort());

    h.clock.advance(HOUR);
    const rotated = await request(h.app).post('/admin/keys/rotate').set(admin()).expect(200);
    const res = await request(h.app)
      .post('/login')
      .send({ base: 'acme', password: 'correct-horse-1' })
      .expect(200);
    const kid = jwt.decode(res.body.token, { complete: true })!.header.kid as string;
    expect(kid).toBe(rotated.body.activated);
    const blocks = pem.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----\n/g)!;
    const key = blocks[kids.indexOf(kid)]!;
    expect(() =>
      jwt.verify(res.body.token, key, { algorithms: ['RS256'], clockTimestamp: h.clock.now / 1000 }),
    ).not.toThrow();
  });

  it('when --all is exported just after a rotation, then the previous key is in the file too (its tokens still live)', async () => {
    const { pem } = await exportKeys('after.pem', '--all');
    expect(kidsIn(pem).sort()).toEqual(
      h.services.keys
        .publishedKeys()
        .map((k) => k.kid)
        .sort(),
    );
    expect(
      h.services.keys
        .publishedKeys()
        .map((k) => k.status)
        .sort(),
    ).toEqual(['current', 'next', 'previous']);
  });
});
