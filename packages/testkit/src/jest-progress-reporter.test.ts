// The repository's jest tooling (scripts/jest-progress-reporter.js, wired in jest.preset.js under CI=true):
// a hung test file must be named in the log before jest would name it, that is, before it ends.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { removeTree } from './remove-tree';

const REPO_ROOT = resolve(__dirname, '../../..');
// biome-ignore lint/suspicious/noExplicitAny: the reporter is plain CommonJS, typed by its JSDoc only
const ProgressReporter: any = require(join(REPO_ROOT, 'scripts', 'jest-progress-reporter.js'));

function captureStderr(run: () => void): string {
  const write = process.stderr.write;
  let text = '';
  process.stderr.write = ((chunk: string) => {
    text += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    run();
  } finally {
    process.stderr.write = write;
  }
  return text;
}

describe('the CI progress reporter', () => {
  const reporter = new ProgressReporter({ rootDir: '/repo/apps/x' });
  const test = { path: '/repo/apps/x/test/slow.test.ts' };

  it('when a test takes longer than 20 s, then it is named with its file and time', () => {
    expect(captureStderr(() => reporter.onTestCaseResult(test, { fullName: 'a b', duration: 25_400 }))).toBe(
      'slow test (25.4 s): test/slow.test.ts: a b\n',
    );
  });

  it('when a test is quicker, or has no duration, then nothing is printed', () => {
    expect(captureStderr(() => reporter.onTestCaseResult(test, { fullName: 'a b', duration: 19_999 }))).toBe(
      '',
    );
    expect(captureStderr(() => reporter.onTestCaseResult(test, { fullName: 'a b', duration: null }))).toBe(
      '',
    );
  });

  it('when jest runs a file that never ends under CI=true, then the log names it while it runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'progress-reporter-'));
    try {
      writeFileSync(
        join(dir, 'jest.config.js'),
        `module.exports = require(${JSON.stringify(join(REPO_ROOT, 'jest.preset.js'))})(__dirname);`,
      );
      mkdirSync(join(dir, 'test'));
      writeFileSync(
        join(dir, 'test', 'hangs.test.ts'),
        "it('waits forever', () => new Promise(() => {}), 600000);\n",
      );
      const jest = spawn(
        process.execPath,
        [join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', join(dir, 'jest.config.js')],
        {
          cwd: dir,
          env: { ...process.env, CI: 'true', NODE_OPTIONS: '' },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      const exited = new Promise((done) => jest.once('exit', done));
      let stderr = '';
      const named = await new Promise<boolean>((done) => {
        jest.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (/^starts test\/hangs\.test\.ts \(\d{4}-\d\d-\d\dT/m.test(stderr)) done(true);
        });
        jest.once('exit', () => done(false));
        // Jest starts in a second or two; a reporter that never prints fails here, not at the test's ceiling.
        setTimeout(() => done(false), 30_000).unref();
      });
      jest.kill('SIGKILL');
      await exited;
      expect({ named, stderr }).toEqual({
        named: true,
        stderr: expect.stringContaining('starts test/hangs.test.ts'),
      });
    } finally {
      removeTree(dir);
    }
  });
});
