// Which database each service gets from the environment (pure: no server needed).
import { derivedDatabaseUrl, serviceDatabases } from '../src';

describe('serviceDatabases', () => {
  it('derives one database per service from DATABASE_URL, keeping the query string', () => {
    const dbs = serviceDatabases({ DATABASE_URL: 'postgres://u:p@db.local:5432/cr?sslmode=require' });
    expect(dbs).toEqual([
      {
        service: 'auth-server',
        url: 'postgres://u:p@db.local:5432/cr_auth?sslmode=require',
        source: 'derived',
      },
      {
        service: 'tenant-api',
        url: 'postgres://u:p@db.local:5432/cr_tenant?sslmode=require',
        source: 'derived',
      },
      {
        service: 'hacienda-sandbox',
        url: 'postgres://u:p@db.local:5432/cr_sandbox?sslmode=require',
        source: 'derived',
      },
    ]);
  });

  it('lets a service setting name its database explicitly', () => {
    const dbs = serviceDatabases({
      DATABASE_URL: 'postgres://h/cr',
      TENANT_DATABASE_URL: 'postgres://other/tenants',
    });
    expect(dbs.find((d) => d.service === 'tenant-api')).toEqual({
      service: 'tenant-api',
      url: 'postgres://other/tenants',
      source: 'explicit',
    });
    expect(dbs.find((d) => d.service === 'auth-server')?.url).toBe('postgres://h/cr_auth');
  });

  it('leaves services without a setting on their embedded engine', () => {
    expect(serviceDatabases({})).toEqual([]);
    expect(serviceDatabases({ AUTH_DATABASE_URL: 'postgres://h/a' }).map((d) => d.service)).toEqual([
      'auth-server',
    ]);
  });

  it('only covers the services asked for', () => {
    const dbs = serviceDatabases({ DATABASE_URL: 'postgres://h/cr' }, ['tenant-api']);
    expect(dbs.map((d) => d.service)).toEqual(['tenant-api']);
  });

  it('refuses two services on one database, naming both and their settings', () => {
    expect(() =>
      serviceDatabases({
        AUTH_DATABASE_URL: 'postgres://u@h/one',
        SANDBOX_DATABASE_URL: 'postgres://v@h/one?x=1',
      }),
    ).toThrow(/auth-server and hacienda-sandbox would share one database \(one\)/);
    expect(() =>
      serviceDatabases({ DATABASE_URL: 'postgres://h/cr', SANDBOX_DATABASE_URL: 'postgres://h/cr_tenant' }),
    ).toThrow(/tenant-api and hacienda-sandbox would share one database \(cr_tenant\).*TENANT_DATABASE_URL/);
  });

  it('tells servers apart as node-postgres reaches them: a socket directory (either form), a port, the default port', () => {
    // One server, written two ways: refused.
    expect(() =>
      serviceDatabases({
        AUTH_DATABASE_URL: 'postgres://h/one',
        TENANT_DATABASE_URL: 'postgres://h:5432/one',
      }),
    ).toThrow(/would share one database \(one\)/);
    expect(() =>
      serviceDatabases({
        AUTH_DATABASE_URL: 'postgres://u@localhost/one?host=/run/postgresql',
        TENANT_DATABASE_URL: 'postgres://v@ignored/one?host=/run/postgresql',
      }),
    ).toThrow(/would share one database \(one\)/);
    expect(() =>
      serviceDatabases({
        AUTH_DATABASE_URL: 'postgres://u@localhost/one?host=/run/postgresql',
        TENANT_DATABASE_URL: 'postgres://%2Frun%2Fpostgresql/one',
      }),
    ).toThrow(/would share one database \(one\)/);
    // Two servers: each keeps its database of the same name.
    const twoSockets = serviceDatabases({
      AUTH_DATABASE_URL: 'postgres://u@localhost/one?host=/run/postgresql',
      TENANT_DATABASE_URL: 'postgres://u@localhost/one?host=/run/other',
    });
    expect(twoSockets).toHaveLength(2);
    expect(
      serviceDatabases({
        AUTH_DATABASE_URL: 'postgres://h/one',
        TENANT_DATABASE_URL: 'postgres://h:5433/one',
      }),
    ).toHaveLength(2);
  });

  it('derives a database per service on a server reached through its socket', () => {
    const url = derivedDatabaseUrl('postgres://u@localhost/cr?host=/var/run/postgresql', 'tenant');
    expect(url).toBe('postgres://u@localhost/cr_tenant?host=/var/run/postgresql');
  });

  it('refuses a DATABASE_URL without a database name or with one that would need quoting', () => {
    expect(() => derivedDatabaseUrl('postgres://h:5432', 'auth')).toThrow(/DATABASE_URL: names no database/);
    expect(() => derivedDatabaseUrl('postgres://h/My-DB', 'auth')).toThrow(
      /"My-DB_auth" is not a plain lower-case identifier/,
    );
  });
});
