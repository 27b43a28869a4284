// A deleted client's base stays reserved (ADR 0065): the tenant-api keeps that tenant's issuers and documents
// (tax records), so a new client created with the same base would log in to them. Creating it again takes an
// explicit `reclaim`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import request from 'supertest';
import { ADMIN_TOKEN, type ListeningHarness, admin, createClient, startListeningHarness } from './helpers';

describe('a deleted client base', () => {
  let h: ListeningHarness;

  beforeAll(async () => {
    h = await startListeningHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  async function deleted(base: string): Promise<string> {
    await createClient(h, { base, password: 'first-owner-pw-1' }).expect(201);
    await request(h.app).delete(`/admin/clients/${base}`).set(admin()).expect(204);
    return new Date(h.clock.now).toISOString();
  }

  it('when a client is deleted, then its base is reserved with the time of the deletion', async () => {
    const at = await deleted('reserved');
    const { rows } = await h.db.query<{ base: string; deleted_at: string }>(
      'SELECT base, deleted_at FROM deleted_clients',
    );
    expect(rows.find((r) => r.base === 'reserved')).toEqual({
      base: 'reserved',
      deleted_at: String(Date.parse(at)),
    });
    expect(await h.services.clients.find('reserved')).toBeUndefined();
  });

  it('when a client is created with a deleted base, then 409 names the deletion and the reclaim field, and nothing is created', async () => {
    const at = await deleted('taken-over');
    h.clock.advance(60_000);
    const res = await createClient(h, { base: 'taken-over', password: 'second-owner-pw-1' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      error: 'conflict',
      message: `base: client "taken-over" was deleted on ${at}; its tenant data remains under that base: issuers with their Hacienda credentials and .p12, documents, and the webhook endpoint and e-mail settings, which would then receive the events and mail of the new client. Create it with "reclaim": true only to give all of it to the new client`,
    });
    expect(await h.services.clients.find('taken-over')).toBeUndefined();
    await request(h.app)
      .post('/login')
      .send({ base: 'taken-over', password: 'second-owner-pw-1' })
      .expect(401);
  });

  it('when the store is asked directly to create a deleted base, then its one statement refuses it too', async () => {
    const at = await deleted('race');
    await expect(h.services.clients.create('race', 'not-a-real-hash')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(`was deleted on ${at}`),
    });
    expect(await h.services.clients.find('race')).toBeUndefined();
  });

  it('when it is created with "reclaim": true, then the client exists, logs in, and the base is no longer reserved', async () => {
    await deleted('reclaimed');
    await createClient(h, { base: 'reclaimed', password: 'second-owner-pw-1', reclaim: true }).expect(201);
    await request(h.app)
      .post('/login')
      .send({ base: 'reclaimed', password: 'second-owner-pw-1' })
      .expect(200);
    const { rows } = await h.db.query("SELECT 1 FROM deleted_clients WHERE base = 'reclaimed'");
    expect(rows).toHaveLength(0);
    const warning = h.logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find(
        (l) =>
          l.message ===
          'client created on a deleted base: it gets that tenant data, webhook endpoint and e-mail settings included',
      );
    expect(warning).toMatchObject({ level: 'warn', base: 'reclaimed' });
  });

  it('when a reclaimed client is deleted again, then the base is reserved again', async () => {
    await deleted('twice-gone');
    await createClient(h, { base: 'twice-gone', password: 'second-owner-pw-1', reclaim: true }).expect(201);
    await request(h.app).delete('/admin/clients/twice-gone').set(admin()).expect(204);
    await createClient(h, { base: 'twice-gone', password: 'third-owner-pw-1' }).expect(409);
  });

  it('when "reclaim": true names a base never deleted, then the client is simply created', async () => {
    await createClient(h, { base: 'fresh', password: 'correct-horse-1', reclaim: true }).expect(201);
    await createClient(h, { base: 'fresh', password: 'correct-horse-1', reclaim: true }).expect(409);
  });

  it('when `admin client:create --reclaim` is run, then it reclaims the deleted base', async () => {
    await deleted('by-cli');
    const run = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(__dirname, '..', 'src', 'cli.ts'), ...args],
        { env: { ...process.env, NODE_OPTIONS: '', AUTH_URL: h.url, AUTH_ADMIN_TOKEN: ADMIN_TOKEN } },
      );
    await expect(
      run('client:create', '--base', 'by-cli', '--password', 'cli-owner-pw-12'),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('"reclaim": true') });
    const { stdout } = await run(
      'client:create',
      '--base',
      'by-cli',
      '--password',
      'cli-owner-pw-12',
      '--reclaim',
    );
    expect(JSON.parse(stdout)).toMatchObject({ base: 'by-cli', disabled: false });
    expect(await h.services.clients.find('by-cli')).toBeDefined();
  });
});
