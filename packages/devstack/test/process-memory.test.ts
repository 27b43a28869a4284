// RSS of a process tree from /proc: a child started here is counted with this process.
import { spawn } from 'node:child_process';
import { processRss, treeRss } from '../src';

describe('treeRss', () => {
  it('counts this process and a child it started, and nothing for a process that is gone', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 300));
    try {
      const own = processRss(process.pid) ?? 0;
      const tree = treeRss(process.pid);
      expect(own).toBeGreaterThan(10 * 1024 * 1024);
      expect(tree.pids).toEqual(expect.arrayContaining([process.pid, child.pid]));
      expect(tree.bytes).toBeGreaterThan(own);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(processRss(child.pid as number)).toBeUndefined();
  });
});
