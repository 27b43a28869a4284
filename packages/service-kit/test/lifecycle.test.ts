// Graceful shutdown with real signals: a signal repeated while the service drains (a process group signalled
// as a whole, the cluster's primary forwarding the same SIGTERM to its workers) does not cut the drain short.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const SERVICE = join(__dirname, 'fixtures', 'draining-service.ts');

it('when SIGTERM comes again while the service drains, then the drain finishes and the service exits 0', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVICE], {
    cwd: join(__dirname, '..'),
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const ready = new Promise<void>((resolve) =>
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('ready')) resolve();
    }),
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  await ready;
  child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  child.kill('SIGTERM');
  child.kill('SIGINT');
  expect(await exited).toEqual({ code: 0, signal: null });
  expect(output).toContain('closed');
}, 30_000);
