// Production runs the tenant-api as the database OWNER, not a superuser (infra/postgres/init-databases.sh);
// the migrations need the row-level-security role tenant_api_tenant and the right to SET ROLE to it, which
// an owner cannot create or grant itself. Reproduced: a bare owner cannot migrate. Fixed: the init script
// (run here for real, with psql, under a unique DB_PREFIX) creates and grants the role; the tenant-api then
// migrates and serves as that owner, with tenant isolation intact. PostgreSQL only: the embedded engine has
// a single user.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type TestDatabase, migrate, openPostgres } from '@cr/service-kit';
import { REPO_ROOT } from '@cr/testkit';
import request from 'supertest';
import { tenantApiMigrations } from '../src/db/with-tenant';
import { issuerBody } from './support/issuer-mother';
import { startTestApp } from './support/test-app';

const adminUrl = process.env.TEST_DATABASE_URL;
const describePg = adminUrl ? describe : describe.skip;
if (!adminUrl) console.info('non-superuser.security: skipped on the embedded engine (PostgreSQL roles only)');

function urlFor(user: string, db: string): string {
  const u = new URL(adminUrl as string);
  u.username = user;
  u.password = 'owner-password-1';
  u.pathname = `/${db}`;
  return u.toString();
}

function asTestDatabase(url: string): TestDatabase {
  const db = openPostgres({ connectionString: url, max: 5 });
  return { ...db, kind: 'postgres', url };
}

describePg('the tenant-api as a non-superuser owner (as compose and k8s run it)', () => {
  const prefix = `t${randomBytes(3).toString('hex')}_`;
  const admin = adminUrl ? openPostgres({ connectionString: adminUrl, max: 1 }) : undefined;

  afterAll(async () => {
    if (!admin) return;
    for (const name of ['auth', 'tenant', 'sandbox', 'bare'])
      await admin.exec(`DROP DATABASE IF EXISTS ${prefix}${name} WITH (FORCE)`);
    for (const name of ['auth', 'tenant', 'sandbox', 'bare']) {
      await admin.exec(`DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${prefix}${name}') THEN
        EXECUTE 'REVOKE tenant_api_tenant FROM ${prefix}${name}'; END IF; EXCEPTION WHEN OTHERS THEN NULL; END $$`);
      await admin.exec(`DROP ROLE IF EXISTS ${prefix}${name}`);
    }
    await admin.close();
  });

  it('when an owner without the role grant migrates (the old compose), then it fails', async () => {
    await admin!.exec(`CREATE ROLE ${prefix}bare LOGIN PASSWORD 'owner-password-1' NOSUPERUSER NOCREATEROLE`);
    await admin!.exec(`CREATE DATABASE ${prefix}bare OWNER ${prefix}bare`);
    const db = asTestDatabase(urlFor(`${prefix}bare`, `${prefix}bare`));
    try {
      await expect(migrate(db, tenantApiMigrations())).rejects.toThrow(
        /permission denied|must have admin option/,
      );
    } finally {
      await db.close();
    }
  });

  it('when init-databases.sh prepared the server, then the owner migrates, serves, and RLS still isolates tenants', async () => {
    const u = new URL(adminUrl as string);
    const run = spawnSync('sh', [join(REPO_ROOT, 'infra/postgres/init-databases.sh')], {
      encoding: 'utf8',
      env: {
        ...process.env,
        DB_PREFIX: prefix,
        POSTGRES_USER: decodeURIComponent(u.username),
        PGHOST: u.hostname,
        PGPORT: u.port || '5432',
        AUTH_DB_PASSWORD: 'owner-password-1',
        TENANT_DB_PASSWORD: 'owner-password-1',
        SANDBOX_DB_PASSWORD: 'owner-password-1',
      },
    });
    expect(run.stderr).not.toMatch(/ERROR/);
    expect(run.status).toBe(0);

    const db = asTestDatabase(urlFor(`${prefix}tenant`, `${prefix}tenant`));
    const who = await db.query<{ rolsuper: boolean; rolcreaterole: boolean }>(
      'SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user',
    );
    expect(who.rows[0]).toEqual({ rolsuper: false, rolcreaterole: false });
    await migrate(db, tenantApiMigrations());

    const ctx = await startTestApp({ database: db, checkExonerations: false });
    try {
      const token = ctx.forge.token('acme');
      const created = await request(ctx.app)
        .post('/api/enviar/emisor')
        .set('Host', ctx.host('acme'))
        .set('Authorization', `Bearer ${token}`)
        .send(issuerBody());
      expect(created.status).toBe(200);
      const mine = await request(ctx.app)
        .post('/api/consultar/emisor')
        .set('Host', ctx.host('acme'))
        .set('Authorization', `Bearer ${token}`)
        .send({ identificacion: 3101123456 });
      expect(mine.status).toBe(200);
      const theirs = await request(ctx.app)
        .post('/api/consultar/emisor')
        .set('Host', ctx.host('globex'))
        .set('Authorization', `Bearer ${ctx.forge.token('globex')}`)
        .send({ identificacion: 3101123456 });
      expect(theirs.status).toBe(404);
    } finally {
      await ctx.close();
    }
  });
});
