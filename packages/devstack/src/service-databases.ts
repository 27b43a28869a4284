// Which database each service of `pnpm start` uses. The three services keep tables of the same names
// (`documents` in the tenant-api and in the sandbox), so one database shared by all three cannot work: the
// second service refuses it, naming the first's migrations (ADR 0069). With `DATABASE_URL` set, each
// service gets a database of its own on that server, named after it (`<db>_auth`, `<db>_tenant`,
// `<db>_sandbox`) and created when missing; `AUTH_DATABASE_URL`, `TENANT_DATABASE_URL` and
// `SANDBOX_DATABASE_URL` name a service's database explicitly (used as given, never created).
import { openPostgres } from '@cr/service-kit';
import { parse as parseConnectionString } from 'pg-connection-string';

export type ServiceName = 'auth-server' | 'tenant-api' | 'hacienda-sandbox';

export const SERVICE_DATABASES: Record<ServiceName, { setting: string; suffix: string }> = {
  'auth-server': { setting: 'AUTH_DATABASE_URL', suffix: 'auth' },
  'tenant-api': { setting: 'TENANT_DATABASE_URL', suffix: 'tenant' },
  'hacienda-sandbox': { setting: 'SANDBOX_DATABASE_URL', suffix: 'sandbox' },
};

export interface ServiceDatabase {
  service: ServiceName;
  url: string;
  /** Derived from DATABASE_URL (and created when missing), or given explicitly. */
  source: 'derived' | 'explicit';
}

/** A PostgreSQL identifier we are willing to create without quoting: lower-case letters, digits, `_`. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function databaseName(url: URL): string {
  return decodeURIComponent(url.pathname.replace(/^\//, ''));
}

/** `postgres://h/cr` + `tenant` → `postgres://h/cr_tenant` (query string kept, e.g. `sslmode`). */
export function derivedDatabaseUrl(baseUrl: string, suffix: string): string {
  const url = new URL(baseUrl);
  const base = databaseName(url);
  if (!base) throw new Error('DATABASE_URL: names no database (expected postgres://user@host:5432/name)');
  const name = `${base}_${suffix}`;
  if (!PLAIN_NAME.test(name)) {
    throw new Error(
      `DATABASE_URL: the derived database name "${name}" is not a plain lower-case identifier; ` +
        `set ${Object.values(SERVICE_DATABASES)
          .map((s) => s.setting)
          .join(', ')} instead`,
    );
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The server and database a URL reaches, read by node-postgres's own parser: a `host` in the query string
 * and a percent-encoded socket directory as host both name a Unix socket; the port defaults to 5432.
 */
function target(url: string): string {
  const c = parseConnectionString(url);
  return `${c.host || 'localhost'}:${c.port || '5432'}/${c.database ?? ''}`;
}

function sameDatabase(a: string, b: string): boolean {
  return target(a) === target(b);
}

/**
 * The database of every service that gets one from the environment; a service absent from the result runs
 * on its embedded engine. Two services on the same database are refused (their migrations collide).
 */
export function serviceDatabases(
  env: Record<string, string | undefined>,
  services: readonly ServiceName[] = Object.keys(SERVICE_DATABASES) as ServiceName[],
): ServiceDatabase[] {
  const shared = env.DATABASE_URL || undefined;
  const chosen: ServiceDatabase[] = [];
  for (const service of services) {
    const { setting, suffix } = SERVICE_DATABASES[service];
    const explicit = env[setting] || undefined;
    if (explicit) chosen.push({ service, url: explicit, source: 'explicit' });
    else if (shared) chosen.push({ service, url: derivedDatabaseUrl(shared, suffix), source: 'derived' });
  }
  for (const [i, a] of chosen.entries()) {
    for (const b of chosen.slice(i + 1)) {
      if (sameDatabase(a.url, b.url)) {
        throw new Error(
          `${a.service} and ${b.service} would share one database (${databaseName(new URL(a.url))}); ` +
            `their tables collide: give each its own (${SERVICE_DATABASES[a.service].setting}, ${SERVICE_DATABASES[b.service].setting})`,
        );
      }
    }
  }
  return chosen;
}

/**
 * Creates the derived databases that do not exist yet, connected as DATABASE_URL's user to DATABASE_URL's
 * own database (which must exist). Returns the names created now.
 */
export async function ensureDerivedDatabases(
  adminUrl: string,
  databases: readonly ServiceDatabase[],
): Promise<string[]> {
  const derived = databases.filter((d) => d.source === 'derived');
  if (derived.length === 0) return [];
  const admin = openPostgres({ connectionString: adminUrl, max: 1, applicationName: 'pnpm-start' });
  const created: string[] = [];
  try {
    for (const d of derived) {
      const name = databaseName(new URL(d.url));
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rows.length > 0) continue;
      try {
        // The name passed PLAIN_NAME in derivedDatabaseUrl, so it needs no quoting.
        await admin.exec(`CREATE DATABASE ${name}`);
        created.push(name);
      } catch (err) {
        // Another start created it between our look and our create.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await admin.close();
  }
  return created;
}
