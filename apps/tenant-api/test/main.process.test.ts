// The real process, as `pnpm start` runs it: settings from the environment, migrations at start, a local PEM
// for tokens, readiness, a full register + consult through HTTP, and a graceful stop on SIGTERM.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCa } from '@cr/hacienda-xml/src/testing/test-certificate';
import { SecretBox, openPglite } from '@cr/service-kit';
import { spawn } from 'node:child_process';
import { type AppProcess, REPO_ROOT, haciendaDataDir, removeTree, startApp } from '@cr/testkit';
import { issuerBody } from './support/issuer-mother';
import { TEST_AUDIENCE, TEST_ISSUER, TokenForge } from './support/token-forge';

function call(port: number, host: string, path: string, token: string, body: unknown) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          host,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': data.length,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * The settings `pnpm start` would give the service, on a fresh embedded database in `dir`, tokens checked
 * against `forge`'s key (written to `dir`).
 */
function developmentEnv(dir: string, forge: TokenForge): Record<string, string | undefined> {
  writeFileSync(join(dir, 'auth.pem'), forge.publicKeyPem);
  return {
    AUTH_PUBLIC_KEY_PATH: join(dir, 'auth.pem'),
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_AUDIENCE: TEST_AUDIENCE,
    DATA_DIR: join(dir, 'data'),
    DATABASE_URL: undefined,
    SECRETS_KEY: SecretBox.generateSetting('p1'),
    HACIENDA_DATA_DIR: haciendaDataDir(),
    // Never the real Hacienda from a test: nothing listens here, so the issuer check warns.
    HACIENDA_PUBLIC_API_URL: 'http://127.0.0.1:9',
    TENANT_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
}

describe('tenant-api process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tenant-api-'));
  const forge = new TokenForge();
  let proc: AppProcess;

  beforeAll(async () => {
    proc = await startApp({
      app: 'tenant-api',
      portVar: 'TENANT_PORT',
      env: developmentEnv(dir, forge),
      timeoutMs: 60_000,
    });
  }, 90_000);

  afterAll(async () => {
    await proc?.stop();
    removeTree(dir);
  });

  it('when started, then it registers and consults an issuer and stops cleanly on SIGTERM', async () => {
    const token = forge.token('acme');
    const created = await call(proc.port, 'acme.localhost', '/api/enviar/emisor', token, issuerBody());
    expect(created).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: 'issuer 3101123456 registered',
        warnings: [{ path: '(hacienda)', reason: expect.stringContaining('could not be reached') }],
      },
    });
    const found = await call(proc.port, 'acme.localhost', '/api/consultar/emisor', token, {
      identificacion: 3101123456,
    });
    expect(found.status).toBe(200);
    expect(proc.output()).toContain('tenant-api listening on');
    if (existsSync(join(haciendaDataDir(), 'cabys.json'))) {
      expect(proc.output()).toMatch(/CABYS catalogue: \d+ codes from /);
    }
    expect(proc.output()).not.toContain('S3cr3t-Hacienda');
    await proc.stop();
    expect(proc.child.exitCode).toBe(0);
  }, 60_000);

  it('when a later release has migrated its database, then it refuses to start, names the migration, and changes nothing', async () => {
    // What a later release leaves behind: a migration this one does not have.
    const later = await openPglite({ dataDir: join(dir, 'data', 'db') });
    await later.query("INSERT INTO schema_migrations (id) VALUES ('9999_from_a_later_release')");
    await later.close();

    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'apps/tenant-api/src/main.ts')],
      {
        env: { ...process.env, NODE_OPTIONS: '', TENANT_PORT: '0', ...developmentEnv(dir, forge) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain(
      'database schema is newer than this release: it holds migrations 9999_from_a_later_release',
    );

    const after = await openPglite({ dataDir: join(dir, 'data', 'db') });
    try {
      const issuers = await after.query<{ n: number }>('SELECT count(*)::int AS n FROM issuers');
      expect(issuers.rows[0]!.n).toBe(1);
      const rows = await after.query(
        "SELECT id FROM schema_migrations WHERE id = '9999_from_a_later_release'",
      );
      expect(rows.rows).toHaveLength(1);
    } finally {
      await after.close();
    }
  }, 90_000);
});

describe('tenant-api process stopped as soon as it is live', () => {
  it('when SIGTERM arrives the moment /health/live first answers, then the shutdown handlers stop it (exit 0, not killed by the signal)', async () => {
    // A first start on a fresh embedded database is the slowest: every step of it must be over before the
    // service answers, or an orchestrator's early SIGTERM meets the default action.
    const dir = mkdtempSync(join(tmpdir(), 'tenant-api-early-stop-'));
    try {
      const proc = await startApp({
        app: 'tenant-api',
        portVar: 'TENANT_PORT',
        env: developmentEnv(dir, new TokenForge()),
        readyPath: '/health/live',
        pollMs: 2,
        timeoutMs: 60_000,
      });
      await proc.stop();
      expect({ code: proc.child.exitCode, signal: proc.child.signalCode }).toEqual({ code: 0, signal: null });
      expect(proc.output()).toContain('shutting down');
    } finally {
      removeTree(dir);
    }
  }, 90_000);
});

/** Starts main.ts in production with `settings` and waits for it to exit; the data dir is thrown away. */
async function startInProduction(settings: Record<string, string>, drop: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'tenant-api-prod-'));
  const forge = new TokenForge();
  writeFileSync(join(dir, 'auth.pem'), forge.publicKeyPem);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !drop.includes(k)) env[k] = v;
  Object.assign(env, {
    NODE_ENV: 'production',
    NODE_OPTIONS: '',
    AUTH_PUBLIC_KEY_PATH: join(dir, 'auth.pem'),
    DATA_DIR: join(dir, 'data'),
    TENANT_PORT: '0',
    ...settings,
  });
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'apps/tenant-api/src/main.ts')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const generated = existsSync(join(dir, 'data', 'secrets-key'));
  removeTree(dir);
  return { code, stderr, generated };
}

describe('tenant-api process in production', () => {
  it('when SECRETS_KEY is missing, then it refuses to start and names the setting', async () => {
    const { code, stderr, generated } = await startInProduction({}, ['SECRETS_KEY', 'HACIENDA_CA_BUNDLE']);
    expect(code).toBe(2);
    expect(stderr).toContain('SECRETS_KEY: is required in production');
    expect(generated).toBe(false);
  }, 60_000);

  it('when HACIENDA_CA_BUNDLE is missing, then it refuses to start: Hacienda answers would go unverified (issue 11.9)', async () => {
    const { code, stderr } = await startInProduction({ SECRETS_KEY: SecretBox.generateSetting('p1') }, [
      'HACIENDA_CA_BUNDLE',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('HACIENDA_CA_BUNDLE: is required in production');
  }, 60_000);

  it('when HACIENDA_CA_BUNDLE cannot be read or holds no CA, then it refuses to start and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenant-api-bundle-'));
    writeFileSync(join(dir, 'empty.pem'), 'not a certificate\n');
    const missing = await startInProduction({
      SECRETS_KEY: SecretBox.generateSetting('p1'),
      HACIENDA_CA_BUNDLE: join(dir, 'absent.pem'),
    });
    const empty = await startInProduction({
      SECRETS_KEY: SecretBox.generateSetting('p1'),
      HACIENDA_CA_BUNDLE: join(dir, 'empty.pem'),
    });
    removeTree(dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/HACIENDA_CA_BUNDLE: .*absent\.pem cannot be read \(ENOENT\)/);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('the CA bundle holds no certificate');
  }, 60_000);

  it('when RECEPCION_CA_BUNDLE is set but cannot be read, then it refuses to start and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenant-api-bundle-'));
    writeFileSync(join(dir, 'hacienda.pem'), makeTestCa().certPem);
    const missing = await startInProduction({
      SECRETS_KEY: SecretBox.generateSetting('p1'),
      HACIENDA_CA_BUNDLE: join(dir, 'hacienda.pem'),
      RECEPCION_CA_BUNDLE: join(dir, 'absent.pem'),
    });
    removeTree(dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/RECEPCION_CA_BUNDLE: .*absent\.pem cannot be read \(ENOENT\)/);
  }, 60_000);
});
