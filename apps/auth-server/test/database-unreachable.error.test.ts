// The auth-server while its PostgreSQL is silent (ADR 0068): requests are answered 503 with Retry-After within
// the bounds instead of hanging, readiness says so, and once the server answers again so does the service, with
// no restart. The database is reached through a proxy that stops forwarding, as a frozen host would.
import { type TcpProxy, startTcpProxy } from '@cr/testkit';
import {
  type Db,
  type TestDatabase,
  createTestDatabase,
  migrate,
  openPostgres,
  readMigrations,
} from '@cr/service-kit';
import { join } from 'node:path';
import request from 'supertest';
import { type Harness, admin, createClient, startHarness } from './helpers';

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('a silent database (PostgreSQL)', () => {
  jest.setTimeout(30_000);
  let test: TestDatabase;
  let proxy: TcpProxy;
  let proxied: Db;
  let h: Harness;

  beforeAll(async () => {
    test = await createTestDatabase();
    await migrate(test, readMigrations(join(__dirname, '..', 'migrations')));
    const target = new URL(test.url!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(test.url!);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    proxied = openPostgres({
      connectionString: url.toString(),
      max: 4,
      connectTimeoutMs: 1_500,
      statementTimeoutMs: 2_000,
      clientMarginMs: 1_000,
    });
    h = await startHarness({ db: proxied });
    await createClient(h, { base: 'acme', password: 'correct-horse-1' }).expect(201);
  });
  afterAll(async () => {
    proxy.thaw();
    await h.close();
    await proxied.close();
    await proxy.close();
    await test.close();
  });

  const expectUnavailable = (res: request.Response): void => {
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toMatchObject({
      error: 'service_unavailable',
      message: 'the database is unavailable; retry later',
    });
  };

  it('when the database stops answering, then a request is a 503 with Retry-After within the bounds, and once it answers again the service serves without a restart', async () => {
    proxy.freeze();
    const started = Date.now();
    expectUnavailable(await request(h.app).get('/admin/clients').set(admin()));
    expect(Date.now() - started).toBeLessThan(8_000);
    expect((await request(h.app).get('/health/ready')).status).toBe(503);

    proxy.thaw();
    // Readiness answers from a probe at most 5 s old (app.ts): it turns once a fresh probe has run.
    const deadline = Date.now() + 10_000;
    while ((await request(h.app).get('/health/ready')).status !== 200) {
      if (Date.now() > deadline) throw new Error('readiness did not come back within 10 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    await request(h.app).post('/login').send({ base: 'acme', password: 'correct-horse-1' }).expect(200);
  });

  it('when the first write of a login may have been committed before the answer was lost, then it is a 500, not an invitation to retry', async () => {
    await proxied.query('SELECT 1'); // a connection open, so the write is sent
    proxy.freeze();
    const res = await request(h.app).post('/login').send({ base: 'acme', password: 'correct-horse-1' });
    expect(res.status).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    proxy.thaw();
  });

  it('when the database refuses connections, then login is a 503 with Retry-After: nothing was sent', async () => {
    await proxy.close(); // its open connections are cut, and its port refuses new ones
    await new Promise((r) => setTimeout(r, 300)); // the pool has seen its idle connections close
    expectUnavailable(
      await request(h.app).post('/login').send({ base: 'acme', password: 'correct-horse-1' }),
    );
  });
});
