import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processesHolding, removeTree } from './remove-tree';

const notEmpty = (dir: string) =>
  Object.assign(new Error(`ENOTEMPTY: directory not empty, rmdir '${dir}/db'`), { code: 'ENOTEMPTY' });

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'remove-tree-'));
  mkdirSync(join(dir, 'db', 'base', '4'), { recursive: true });
  writeFileSync(join(dir, 'db', 'base', '4', '1259'), 'page');
  return dir;
}

/** A child that runs `code` and says 'ready' once it has. */
async function holder(code: string, cwd?: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['-e', `${code}; console.log('ready'); setInterval(() => {}, 1000)`],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      ...(cwd ? { cwd } : {}),
    },
  );
  await new Promise((ready) => child.stdout?.once('data', ready));
  return child;
}

const stop = (child: ChildProcess) =>
  new Promise((done) => {
    child.once('exit', done);
    child.kill('SIGKILL');
  });

describe('removeTree', () => {
  it('removes a directory and everything under it', () => {
    const dir = scratch();
    removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('when a process still works in the directory, then it fails naming that process instead of retrying', async () => {
    const dir = scratch();
    const child = await holder('0', join(dir, 'db'));
    try {
      let calls = 0;
      expect(() =>
        removeTree(dir, () => {
          calls++;
          throw notEmpty(dir);
        }),
      ).toThrow(new RegExp(`still in use after its processes exited: ${child.pid} .*works in ${dir}/db`));
      expect(calls).toBe(1);
    } finally {
      await stop(child);
      removeTree(dir);
    }
  });

  it('when no process holds it, then it tries again and writes what was left to stderr', () => {
    const dir = scratch();
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((text) => {
      written.push(String(text));
      return true;
    });
    try {
      let calls = 0;
      removeTree(dir, (path) => {
        if (++calls < 3) throw notEmpty(path);
        removeTree(path);
      });
      expect(calls).toBe(3);
      expect(existsSync(dir)).toBe(false);
      expect(written.join('')).toMatch(
        /no process holds .*left under it: db \S+; db\/base \S+; db\/base\/4 \S+/,
      );
    } finally {
      write.mockRestore();
    }
  });

  it('when the directory never empties, then it gives up with what is left', () => {
    const dir = scratch();
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(() =>
        removeTree(dir, (path) => {
          throw notEmpty(path);
        }),
      ).toThrow(/could not be removed: ENOTEMPTY.*db\/base\/4\/1259/);
    } finally {
      write.mockRestore();
      removeTree(dir);
    }
  });

  it('passes on an error that is not about what was left', () => {
    expect(() =>
      removeTree('/nowhere', () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      }),
    ).toThrow('EACCES');
  });
});

describe('processesHolding', () => {
  it('names a process with a file open under the directory, and one with the path in its command line', async () => {
    const dir = scratch();
    const file = join(dir, 'db', 'base', '4', '1259');
    const open = await holder(`require('node:fs').openSync(${JSON.stringify(file)}, 'r')`);
    const named = await holder(`process.argv.push(${JSON.stringify(dir)})`);
    try {
      const holders = processesHolding(dir).join('\n');
      expect(holders).toContain(`${open.pid} `);
      expect(holders).toContain(`has ${file} open`);
      expect(holders).toMatch(new RegExp(`^${named.pid} .*: names it in its command line$`, 'm'));
    } finally {
      await Promise.all([stop(open), stop(named)]);
      removeTree(dir);
    }
    expect(processesHolding(dir)).toEqual([]);
  });
});
