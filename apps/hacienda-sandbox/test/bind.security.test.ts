// Attack: on a shared network, someone reaches a developer's `pnpm start` stack (open sandbox admin API,
// development keys) through the machine's address. Refused: with no SANDBOX_HOST (nor HOST for `pnpm start`)
// the process binds loopback only, so any other local address (127.0.0.2 is loopback too, but not the bound
// 127.0.0.1; and the machine's network address when it has one) refuses the connection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProcess, startApp, whoReaches } from '@cr/testkit';
import { loadSandboxConfig } from '../src/config';

describe('sandbox binds loopback unless asked', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-bind-'));
  let app: AppProcess;

  beforeAll(async () => {
    app = await startApp({
      app: 'hacienda-sandbox',
      portVar: 'SANDBOX_PORT',
      env: { DATA_DIR: dataDir, DATABASE_URL: undefined, SANDBOX_HOST: undefined, LOG_LEVEL: 'warn' },
      readyPath: '/health/live',
      timeoutMs: 170_000,
    });
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when SANDBOX_HOST is not set, then the default is 127.0.0.1', () => {
    expect(loadSandboxConfig({}).SANDBOX_HOST).toBe('127.0.0.1');
  });

  it('when started without SANDBOX_HOST, then only 127.0.0.1 accepts connections', async () => {
    expect(await whoReaches(app.port)).toEqual({ loopback: true, otherLoopback: false, network: false });
  });
});
