// `pnpm start` against one PostgreSQL server: first the failure it fixes (two services migrating one
// database collide on their `documents` tables), then the launcher giving each service a database of its
// own, all three ready, each database holding only its own service's migrations.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '@cr/service-kit';
import { REPO_ROOT, freePort, startApp } from '@cr/testkit';

const adminUrl = process.env.TEST_DATABASE_URL;
if (!adminUrl) {
  console.warn('start-databases: TEST_DATABASE_URL unset; these tests need a PostgreSQL server (skipped)');
}
const describePg = adminUrl ? describe : describe.skip;

function urlOf(name: string): string {
  const url = new URL(adminUrl as string);
  url.pathname = `/${name}`;
  return url.toString();
}

describePg('pnpm start with DATABASE_URL', () => {
  const admin = adminUrl ? openPostgres({ connectionString: adminUrl, max: 1 }) : undefined;
  const base = `st_${randomBytes(4).toString('hex')}`;
  const dataRoot = mkdtempSync(join(tmpdir(), 'devstack-'));
  const dropped = [base, `${base}_shared`, `${base}_auth`, `${base}_tenant`, `${base}_sandbox`];

  afterAll(async () => {
    for (const name of dropped) await admin?.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.close();
    rmSync(dataRoot, { recursive: true, force: true });
  });

  it('reproduces the collision: the tenant-api refuses a database the sandbox already uses, naming its migrations', async () => {
    await admin?.exec(`CREATE DATABASE ${base}_shared`);
    const env = {
      DATABASE_URL: urlOf(`${base}_shared`),
      DATA_DIR: join(dataRoot, 'shared'),
      LOG_LEVEL: 'warn',
    };
    const sandbox = await startApp({
      app: 'hacienda-sandbox',
      portVar: 'SANDBOX_PORT',
      env,
      readyPath: '/health/live',
      timeoutMs: 90_000,
    });
    try {
      await expect(
        startApp({ app: 'tenant-api', portVar: 'TENANT_PORT', env, timeoutMs: 90_000 }),
      ).rejects.toThrow(
        /database schema is newer than this release: it holds migrations 0001_sandbox, .*or the database is another service's/,
      );
    } finally {
      await sandbox.stop();
    }
  });

  it('gives each service its own database, created on first start, and all three become ready', async () => {
    await admin?.exec(`CREATE DATABASE ${base}`);
    const ports = {
      AUTH_PORT: await freePort(),
      TENANT_PORT: await freePort(),
      SANDBOX_PORT: await freePort(),
    };
    const mail = { MAIL_CATCHER_SMTP_PORT: await freePort(), MAIL_CATCHER_WEB_PORT: await freePort() };
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'start.ts')],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          LOG_LEVEL: 'warn',
          DATABASE_URL: urlOf(base),
          DATA_ROOT: join(dataRoot, 'stack'),
          // Free ports for the three metrics listeners too (other runs may hold 9400-9402).
          AUTH_METRICS_PORT: '0',
          TENANT_METRICS_PORT: '0',
          SANDBOX_METRICS_PORT: '0',
          ...Object.fromEntries(Object.entries({ ...ports, ...mail }).map(([k, v]) => [k, String(v)])),
          SMTP_URL: undefined,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 150_000;
      while (!out.includes('Development stack is up')) {
        if (child.exitCode !== null) throw new Error(`pnpm start exited (${child.exitCode}):\n${out}`);
        if (Date.now() > deadline) throw new Error(`pnpm start did not come up:\n${out}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(out).toContain(`created databases: ${base}_auth, ${base}_sandbox, ${base}_tenant`);
      for (const port of Object.values(ports)) {
        const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
        expect(ready.status).toBe(200);
      }
      // The mail catcher takes the tenant-api's e-mail: it says where, and its page answers.
      expect(out).toContain(`(SMTP smtp://127.0.0.1:${mail.MAIL_CATCHER_SMTP_PORT}: the receptors' e-mails)`);
      const page = await fetch(`http://127.0.0.1:${mail.MAIL_CATCHER_WEB_PORT}/`);
      expect(await page.text()).toContain('Correo capturado (0)');
      const migrationsOf = async (name: string) => {
        const db = openPostgres({ connectionString: urlOf(name), max: 1 });
        try {
          const r = await db.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
          return r.rows.map((row) => row.id);
        } finally {
          await db.close();
        }
      };
      expect(await migrationsOf(`${base}_auth`)).toContain('0001_auth');
      expect(await migrationsOf(`${base}_sandbox`)).toEqual(expect.arrayContaining(['0001_sandbox']));
      const tenant = await migrationsOf(`${base}_tenant`);
      expect(tenant).toContain('0001_tenant_role_and_issuers');
      expect(tenant).not.toContain('0001_sandbox');
      expect(tenant).not.toContain('0001_auth');
      // The database named by DATABASE_URL itself stays untouched.
      const own = openPostgres({ connectionString: urlOf(base), max: 1 });
      const tables = await own.query("SELECT 1 FROM pg_tables WHERE schemaname = 'public'");
      await own.close();
      expect(tables.rows).toHaveLength(0);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
