// `pnpm start`'s derived databases on a PostgreSQL reached through its Unix socket, as a server beside the
// services is (no TCP on loopback). Needs TEST_DATABASE_URL's server to have a socket in TEST_PG_SOCKET_DIR
// (Debian's /var/run/postgresql by default); a server in a container has none, and the test says so.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgres } from '@cr/service-kit';
import { ensureDerivedDatabases, serviceDatabases } from '../src';

const socketDir = process.env.TEST_PG_SOCKET_DIR ?? '/var/run/postgresql';
const adminUrl = process.env.TEST_DATABASE_URL;
const socketUrl = (() => {
  if (!adminUrl) return undefined;
  const port = new URL(adminUrl).port || '5432';
  if (!existsSync(join(socketDir, `.s.PGSQL.${port}`))) return undefined;
  const url = new URL(adminUrl);
  url.hostname = 'localhost';
  url.searchParams.set('host', socketDir);
  return url;
})();
if (!socketUrl) {
  console.warn(
    `socket-databases: TEST_DATABASE_URL unset, or its server has no socket in ${socketDir} (skipped)`,
  );
}

(socketUrl ? describe : describe.skip)('derived databases through a Unix socket', () => {
  const base = `sk_${randomBytes(4).toString('hex')}`;
  const admin = adminUrl ? openPostgres({ connectionString: adminUrl, max: 1 }) : undefined;

  afterAll(async () => {
    for (const suffix of ['', '_tenant', '_auth'])
      await admin?.exec(`DROP DATABASE IF EXISTS ${base}${suffix} WITH (FORCE)`);
    await admin?.close();
  });

  it('creates each missing database on the server the socket reaches, once', async () => {
    await admin?.exec(`CREATE DATABASE ${base}`);
    const url = new URL(socketUrl as URL);
    url.pathname = `/${base}`;
    const dbs = serviceDatabases({ DATABASE_URL: url.toString() }, ['tenant-api', 'auth-server']);
    expect(dbs[0]?.url).toContain(`/${base}_tenant?host=`);
    expect(await ensureDerivedDatabases(url.toString(), dbs)).toEqual([`${base}_tenant`, `${base}_auth`]);
    expect(await ensureDerivedDatabases(url.toString(), dbs)).toEqual([]);
    const found = await admin?.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname',
      [`${base}_%`],
    );
    expect(found?.rows.map((r) => r.datname)).toEqual([`${base}_auth`, `${base}_tenant`]);
    // The service's own connection reaches that database through the socket, not TCP to localhost
    // (the server has no address for a socket's session).
    const tenant = openPostgres({ connectionString: dbs[0]?.url as string, max: 1 });
    try {
      const r = await tenant.query<{ db: string; addr: string | null }>(
        'SELECT current_database() AS db, inet_server_addr()::text AS addr',
      );
      expect(r.rows[0]).toEqual({ db: `${base}_tenant`, addr: null });
    } finally {
      await tenant.close();
    }
  });
});
