// Recepción's 429s and 404s must not make the Hacienda jobs hammer it nor park a document for good: a
// Retry-After is a floor under the backoff and is clamped (0, a reset already past, a year, a date that cannot
// be written); an enviado document that Hacienda does not know (a gateway's 2xx page took the POST) is
// submitted again, no sooner than RESUBMIT_AFTER_MS after its last submission.
import { getJob } from '@cr/jobs';
import type { Request, Response } from 'express';
import { FakeHacienda } from '../../../packages/hacienda-client/test/fake-hacienda';
import { withTenant } from '../src/db/with-tenant';
import { listEvents } from '../src/documents/document-repository';
import { RESUBMIT_AFTER_MS } from '../src/hacienda/resubmission';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'S3cr3t-Hacienda!';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// One step each, so every retry's delay is known (±20% jitter); the first status check waits for the test.
const SCHEDULES = { submit: [MINUTE], status: [MINUTE], statusCapMs: HOUR, firstStatusMs: HOUR };

let fake: FakeHacienda;
let ctx: TestApp;
beforeAll(async () => {
  fake = new FakeHacienda();
  await fake.start();
  fake.users.set(USER, PASSWORD);
  ctx = await startTestApp({ hacienda: fake.settings, schedules: SCHEDULES });
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody({ usuarioHacienda: USER }))).status).toBe(
    200,
  );
});
afterAll(async () => {
  await ctx.close();
  await fake.stop();
});
afterEach(() => {
  fake.recepcionScript.length = 0;
  fake.statusScript.length = 0;
});

async function submit(n: number): Promise<{ clave: string; id: string }> {
  const res = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', n));
  expect(res.status).toBe(200);
  const r = await ctx.db.query<{ id: string }>('SELECT id FROM documents WHERE clave = $1', [res.body.clave]);
  return { clave: res.body.clave, id: r.rows[0]!.id };
}

async function state(id: string) {
  const r = await ctx.db.query<{ estado: string; submit_attempts: number }>(
    'SELECT estado, submit_attempts FROM documents WHERE id = $1',
    [id],
  );
  return r.rows[0]!;
}

async function drive(done: () => Promise<boolean>, limit = 200): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await done()) return;
    const ran = await ctx.worker.runOnce();
    if (ran === 0) await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the document did not reach the expected state');
}

/** Runs whatever falls due for `ms`, as a worker would. */
async function runFor(ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await ctx.worker.runOnce()) === 0) await new Promise((r) => setTimeout(r, 10));
  }
}

const dueNow = (key: string) => ctx.db.query('UPDATE jobs SET run_at = now() WHERE key = $1', [key]);
const postsOf = (clave: string) => fake.submissions.filter((s) => s.body.clave === clave).length;
const events = (id: string) => withTenant(ctx.db, 'acme', (tx) => listEvents(tx, 'acme', id));

/** `count` scripted answers of 429 with `headers`, counting the requests that got one. */
function tooMany(count: number, headers: Record<string, string>) {
  const seen = { requests: 0 };
  const answer = (_req: Request, res: Response) => {
    seen.requests += 1;
    res.status(429).set(headers).end();
  };
  return { seen, answers: Array.from({ length: count }, () => answer) };
}

/** A document recepción took (the fake keeps it procesando), its status check not yet due. */
async function enviado(n: number) {
  const doc = await submit(n);
  await drive(async () => (await state(doc.id)).estado === 'enviado');
  return doc;
}

/** Runs the document's status check once with `headers` on a 429; returns when the job is due again. */
async function statusAfter429(id: string, headers: Record<string, string>): Promise<number> {
  const { seen, answers } = tooMany(1, headers);
  fake.statusScript.push(...answers);
  await dueNow(`status:${id}`);
  await drive(async () => seen.requests === 1);
  await drive(async () => (await getJob(ctx.db, { key: `status:${id}` }))?.state === 'pending');
  const job = await getJob(ctx.db, { key: `status:${id}` });
  return job!.runAt.getTime();
}

/** Runs the document's submission once with `headers` on a 429; returns when the job is due again. */
async function submitAfter429(
  headers: Record<string, string>,
  n: number,
): Promise<{ at: number; id: string }> {
  const { seen, answers } = tooMany(1, headers);
  fake.recepcionScript.push(...answers);
  const { id } = await submit(n);
  await drive(async () => seen.requests === 1);
  await drive(async () => (await state(id)).submit_attempts === 1);
  const job = await getJob(ctx.db, { key: `submit:${id}` });
  expect(job!.state).toBe('pending');
  return { at: job!.runAt.getTime(), id };
}

describe('recepción 429: the Retry-After is a floor under the backoff', () => {
  it('when 50 status checks in a row answer 429 Retry-After: 0, then the check waits its backoff instead of asking again at once', async () => {
    const { id } = await enviado(1);
    const { seen, answers } = tooMany(50, { 'Retry-After': '0' });
    fake.statusScript.push(...answers);
    await dueNow(`status:${id}`);
    await runFor(900);
    expect(seen.requests).toBe(1);
    const job = await getJob(ctx.db, { key: `status:${id}` });
    expect(job!.runAt.getTime()).toBeGreaterThanOrEqual(Date.now() + 0.8 * MINUTE - 5_000);
  });

  it('when 50 submissions in a row answer 429 Retry-After: 0, then the submission waits its backoff instead of posting again at once', async () => {
    const { seen, answers } = tooMany(50, { 'Retry-After': '0' });
    fake.recepcionScript.push(...answers);
    const { clave, id } = await submit(2);
    await runFor(900);
    expect(seen.requests).toBe(1);
    expect(postsOf(clave)).toBe(1);
    expect((await state(id)).submit_attempts).toBe(1);
    const job = await getJob(ctx.db, { key: `submit:${id}` });
    expect(job!.runAt.getTime()).toBeGreaterThanOrEqual(Date.now() + 0.8 * MINUTE - 5_000);
  });

  it('when a 429 names an X-Ratelimit-Reset already past, then the status check waits its backoff', async () => {
    const { id } = await enviado(3);
    const before = Date.now();
    const at = await statusAfter429(id, { 'X-Ratelimit-Reset': '1' });
    expect(at).toBeGreaterThanOrEqual(before + 0.8 * MINUTE);
  });

  it('when a 429 asks for longer than the backoff (within the cap), then its wait is kept', async () => {
    const { id } = await enviado(4);
    const before = Date.now();
    const at = await statusAfter429(id, { 'Retry-After': '600' });
    expect(at).toBeGreaterThanOrEqual(before + 600_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 600_000);
  });
});

describe('recepción 429: the Retry-After is clamped', () => {
  it('when a status check is told to wait a year, then it waits at most the status cap (an hour)', async () => {
    const { id } = await enviado(5);
    const at = await statusAfter429(id, { 'Retry-After': '31536000' });
    expect(at).toBeLessThanOrEqual(Date.now() + HOUR);
    expect(at).toBeGreaterThanOrEqual(Date.now() + HOUR - 5_000);
  });

  it('when a status check is told to wait past any writable date, then its retry is recorded within the cap', async () => {
    const { id } = await enviado(6);
    const at = await statusAfter429(id, { 'Retry-After': '99999999999999' });
    expect(at).toBeLessThanOrEqual(Date.now() + HOUR);
    const job = await getJob(ctx.db, { key: `status:${id}` });
    expect(job).toMatchObject({ state: 'pending', lockedBy: null });
    expect(job!.lastError).toContain('rateLimited 429');
  });

  it('when a submission is told to wait a year, then it waits at most the last step of the submission schedule', async () => {
    const { at } = await submitAfter429({ 'Retry-After': '31536000' }, 7);
    expect(at).toBeLessThanOrEqual(Date.now() + MINUTE);
    expect(at).toBeGreaterThanOrEqual(Date.now() + MINUTE - 5_000);
  });

  it('when a submission is told to wait past any writable date, then its retry is recorded within the cap', async () => {
    const { at, id } = await submitAfter429({ 'Retry-After': '99999999999999' }, 8);
    expect(at).toBeLessThanOrEqual(Date.now() + MINUTE);
    const job = await getJob(ctx.db, { key: `submit:${id}` });
    expect(job).toMatchObject({ state: 'pending', lockedBy: null });
  });
});

describe('recepción 404 for an enviado document: submitted again', () => {
  /** A gateway's 2xx page in front of recepción: the client takes it as received; Hacienda never saw it. */
  const gatewayPage = (_req: Request, res: Response) =>
    void res.status(200).type('html').send('<html><body>OK</body></html>');

  /** The document's last submission, `ago` ms back (the clock RESUBMIT_AFTER_MS is measured on). */
  const submittedAgo = (id: string, ago: number) =>
    ctx.db.query("UPDATE documents SET updated_at = now() - $2 * interval '1 millisecond' WHERE id = $1", [
      id,
      ago,
    ]);

  /** Runs the document's status check once (it answers 404: the fake has not got the clave). */
  async function checkStatus(id: string): Promise<void> {
    const before = (await getJob(ctx.db, { key: `status:${id}` }))!.attempts;
    await dueNow(`status:${id}`);
    await drive(async () => (await getJob(ctx.db, { key: `status:${id}` }))!.attempts > before);
    await drive(async () => (await getJob(ctx.db, { key: `status:${id}` }))!.state === 'pending');
  }

  it('when recepción does not know an enviado document, then it is posted again once its last submission is old enough, and followed to its end', async () => {
    fake.recepcionScript.push(gatewayPage);
    const { clave, id } = await enviado(20);
    expect(fake.received.has(clave)).toBe(false);

    // Just submitted: Hacienda may not show it yet, so a 404 only puts the check off.
    await checkStatus(id);
    expect(await state(id)).toEqual({ estado: 'enviado', submit_attempts: 1 });
    expect(postsOf(clave)).toBe(1);

    await submittedAgo(id, RESUBMIT_AFTER_MS + 1_000);
    await checkStatus(id);
    await drive(async () => postsOf(clave) === 2 && (await state(id)).estado === 'enviado');
    expect(fake.received.has(clave)).toBe(true);
    expect((await state(id)).submit_attempts).toBe(2);
    const logged = ctx.log.text.split('\n').find((l) => l.includes('submitting it again') && l.includes(id));
    expect(logged).toContain(`No existe el recurso con Clave = [${clave}]`);
    // The POST again brought the status check forward: Hacienda now knows it.
    const status = await getJob(ctx.db, { key: `status:${id}` });
    expect(status!.runAt.getTime()).toBeLessThanOrEqual(Date.now());

    fake.received.get(clave)!.estado = 'aceptado';
    await drive(async () => (await state(id)).estado === 'aceptado');
    expect(postsOf(clave)).toBe(2);
    expect((await events(id)).map((e) => e.estado)).toEqual(['pendiente', 'enviado', 'aceptado']);
    const consult = await post(ctx, 'acme', '/api/consultar/documento', { clave });
    expect(consult.body.data).toMatchObject({ estado: 'aceptado', intentos: 2 });
  });

  it('when the document keeps answering 404 after it was posted again, then it is posted no more until its last submission is old enough again', async () => {
    fake.recepcionScript.push(gatewayPage, gatewayPage, gatewayPage);
    const { clave, id } = await enviado(21);
    await submittedAgo(id, RESUBMIT_AFTER_MS + 1_000);
    await checkStatus(id);
    await drive(async () => postsOf(clave) === 2 && (await state(id)).estado === 'enviado');

    // Brought forward by the POST, the check answers 404 again: it backs off and posts nothing.
    await runFor(500);
    for (let i = 0; i < 5; i++) await checkStatus(id);
    expect(postsOf(clave)).toBe(2);
    expect(await state(id)).toEqual({ estado: 'enviado', submit_attempts: 2 });
    const status = await getJob(ctx.db, { key: `status:${id}` });
    expect(status!.runAt.getTime()).toBeGreaterThan(Date.now() + 0.8 * MINUTE - 5_000);
    expect(status!.lastError).toContain('notFound 404');

    // Bounded, not given up: once old enough again, one more POST.
    await submittedAgo(id, RESUBMIT_AFTER_MS + 1_000);
    await checkStatus(id);
    await drive(async () => postsOf(clave) === 3 && (await state(id)).estado === 'enviado');
    await runFor(300);
    expect(postsOf(clave)).toBe(3);
  });

  it('when two status checks of one document both find it unknown, then it is posted again once', async () => {
    fake.recepcionScript.push(gatewayPage);
    const { clave, id } = await enviado(22);
    await submittedAgo(id, RESUBMIT_AFTER_MS + 1_000);
    // A second follow-up job of the same document (a lost lease replays the same way): both get the 404.
    await ctx.db.query(
      `INSERT INTO jobs (queue, key, payload, run_at, tenant)
       VALUES ('hacienda.status', $1, $2::jsonb, now(), 'acme')`,
      [`status-twin:${id}`, JSON.stringify({ tenantId: 'acme', documentId: id })],
    );
    await dueNow(`status:${id}`);
    const ran = async (key: string) => (await getJob(ctx.db, { key }))!.attempts > 0;
    await drive(async () => (await ran(`status:${id}`)) && (await ran(`status-twin:${id}`)));
    await drive(async () => postsOf(clave) >= 2 && (await state(id)).estado === 'enviado');
    await runFor(300);
    expect(postsOf(clave)).toBe(2);
    const again = await ctx.db.query("SELECT key FROM jobs WHERE queue = 'hacienda.submit' AND key LIKE $1", [
      `submit:${id}%`,
    ]);
    expect(again.rowCount).toBe(2);
  });
});
