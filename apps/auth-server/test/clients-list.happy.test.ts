// GET /admin/clients and `pnpm admin client:list`: every client, a page at a time by base, for the admin
// token only. Deleted clients are not listed.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { ClientList, validate } from '@cr/contracts';
import { ADMIN_TOKEN, type ListeningHarness, admin, createClient, startListeningHarness } from './helpers';

// Out of order on purpose, with a hyphen, which sorts before the digits and letters in byte order.
const BASES = ['globex', 'acme', 'a-1', 'zeta', 'initech', 'acme2'];
const SORTED = ['a-1', 'acme', 'acme2', 'globex', 'initech', 'zeta'];

describe('GET /admin/clients', () => {
  let h: ListeningHarness;

  beforeAll(async () => {
    h = await startListeningHarness();
    for (const base of [...BASES, 'deleted']) {
      await createClient(h, { base, password: 'correct-horse-1' }).expect(201);
    }
    await request(h.app).patch('/admin/clients/globex').set(admin()).send({ disabled: true }).expect(200);
    await request(h.app).delete('/admin/clients/deleted').set(admin()).expect(204);
  });
  afterAll(async () => {
    await h.close();
  });

  it('when asked without a page, then every client is listed by base with its state, and next is null', async () => {
    const res = await request(h.app).get('/admin/clients').set(admin()).expect(200);
    expect(validate(ClientList, res.body).ok).toBe(true);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.clients.map((c: { base: string }) => c.base)).toEqual(SORTED);
    expect(res.body.next).toBeNull();
    expect(res.body.clients.find((c: { base: string }) => c.base === 'globex')).toEqual({
      base: 'globex',
      disabled: true,
      createdAt: new Date(h.clock.now).toISOString(),
    });
  });

  it('when paged by two, then following next visits every client once and the last page says null', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await request(h.app)
        .get('/admin/clients')
        .query({ limit: 2, ...(after ? { after } : {}) })
        .set(admin())
        .expect(200);
      seen.push(...res.body.clients.map((c: { base: string }) => c.base));
      after = res.body.next;
      pages++;
    } while (after);
    expect(seen).toEqual(SORTED);
    expect(pages).toBe(3);
  });

  it.each([
    ['after is not a base', { after: 'Not A Base' }, 'after: must be a base'],
    ['limit is 0', { limit: '0' }, 'limit: must be an integer from 1 to 200'],
    ['limit is 201', { limit: '201' }, 'limit: must be an integer from 1 to 200'],
    ['limit is not a number', { limit: 'ten' }, 'limit: must be an integer from 1 to 200'],
  ])('when %s, then 400 naming the parameter', async (_name, query, message) => {
    const res = await request(h.app).get('/admin/clients').query(query).set(admin()).expect(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringContaining(message) });
  });

  it.each([
    ['no header', undefined],
    ['a wrong token', 'Bearer not-the-admin-token-at-all-000'],
  ])('when the request has %s, then 401 and no client is named', async (_name, header) => {
    const req = request(h.app).get('/admin/clients');
    if (header) req.set('authorization', header);
    const res = await req.expect(401);
    expect(res.body.error).toBe('unauthorized');
    expect(res.text).not.toContain('acme');
  });

  it('when `admin client:list` is run, then it prints every client across pages', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '..', 'src', 'cli.ts'), 'client:list'],
      { env: { ...process.env, NODE_OPTIONS: '', AUTH_URL: h.url, AUTH_ADMIN_TOKEN: ADMIN_TOKEN } },
    );
    expect(JSON.parse(stdout).clients.map((c: { base: string }) => c.base)).toEqual(SORTED);
  });
});
