// `pnpm admin --help` (and `help`, `-h`) prints the commands and exits 0; an unknown command is an error
// that prints them too.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const CLI = join(__dirname, '..', 'src', 'cli.ts');

function admin(...args: string[]) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...process.env, NODE_OPTIONS: '' },
  });
}

describe('pnpm admin help', () => {
  it.each(['--help', 'help', '-h'])(
    'when asked with %s, then the commands go to stdout and it exits 0',
    async (flag) => {
      const { stdout } = await admin(flag);
      expect(stdout).toMatch(/^usage: pnpm admin <command>/);
      expect(stdout).toContain('client:create --base <base>');
    },
  );

  it('when the command is unknown, then it exits 1 naming it, with the commands', async () => {
    await expect(admin('client:frobnicate')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('unknown command "client:frobnicate"'),
    });
  });
});
