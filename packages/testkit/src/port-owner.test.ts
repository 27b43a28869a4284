import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, freePort, startApp } from './index';
import { listensOn } from './port-owner';
import { removeTree } from './remove-tree';

const onLinux = process.platform === 'linux';

async function listening(server: Server): Promise<number> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return address.port;
}

(onLinux ? describe : describe.skip)('listensOn (Linux /proc)', () => {
  let idle: ChildProcess;
  beforeAll(async () => {
    idle = spawn(process.execPath, ['-e', "console.log('ready'); setInterval(() => {}, 1000)"], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((ready) => idle.stdout?.once('data', ready));
  });
  afterAll(() => {
    idle.kill('SIGKILL');
  });

  it('when this process listens on the port, then it is the owner and another process is not', async () => {
    const server = createServer();
    const port = await listening(server);
    try {
      expect(listensOn(process.pid, port)).toBe(true);
      expect(listensOn(idle.pid as number, port)).toBe(false);
    } finally {
      await new Promise((done) => server.close(done));
    }
    expect(listensOn(process.pid, port)).toBe(false);
  });

  it('when the process does not exist, or /proc has no socket tables, then it cannot tell', () => {
    expect(listensOn(2 ** 22 + 1, 1)).toBeUndefined();
    const procWithoutNet = mkdtempSync(join(tmpdir(), 'proc-'));
    try {
      mkdirSync(join(procWithoutNet, String(process.pid), 'fd'), { recursive: true });
      expect(listensOn(process.pid, 1, procWithoutNet)).toBeUndefined();
    } finally {
      removeTree(procWithoutNet);
    }
  });
});

const sandboxPresent = existsSync(join(REPO_ROOT, 'apps', 'hacienda-sandbox', 'src', 'main.ts'));

(onLinux && sandboxPresent ? describe : describe.skip)('startApp when its port is taken meanwhile', () => {
  it('when another server answers on the chosen port, then the app starts on the next one and is its own', async () => {
    let foreignReadyCalls = 0;
    const foreign = createServer((req, res) => {
      if (req.url === '/health/ready') foreignReadyCalls++;
      res.writeHead(200).end('{"status":"ok"}');
    });
    const takenPort = await listening(foreign);
    const ports = [takenPort];
    const dataDir = mkdtempSync(join(tmpdir(), 'start-app-port-'));
    const app = await startApp({
      app: 'hacienda-sandbox',
      portVar: 'SANDBOX_PORT',
      env: { DATA_DIR: dataDir, DATABASE_URL: undefined, LOG_LEVEL: 'warn' },
      // As the tenant-api's sandbox tests allow: tsx and the sandbox's start take long on a loaded CI machine.
      timeoutMs: 120_000,
      choosePort: async () => ports.shift() ?? freePort(),
    });
    try {
      expect(foreignReadyCalls).toBeGreaterThan(0);
      expect(app.port).not.toBe(takenPort);
      expect(listensOn(app.child.pid as number, app.port)).toBe(true);
      const health = await fetch(`${app.url}/health/ready`);
      expect(health.status).toBe(200);
    } finally {
      await app.stop();
      await new Promise((done) => foreign.close(done));
      removeTree(dataDir);
    }
  }, 180_000);
});
