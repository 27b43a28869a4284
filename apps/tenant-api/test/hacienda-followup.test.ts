// The Hacienda follow-up jobs against a local fake Hacienda over HTTP (the client package's fake): submit,
// the status follow-up to a final state, 5xx and 401 handling, refusals with X-Error-Cause, the callback
// (on a non-tenant host, body never trusted), and a worker dying mid-job.
import { readMensajeHacienda } from '@cr/hacienda-xml';
import { getJob } from '@cr/jobs';
import type { Request, Response } from 'express';
import request from 'supertest';
import { FakeHacienda } from '../../../packages/hacienda-client/test/fake-hacienda';
import { withTenant } from '../src/db/with-tenant';
import { listEvents } from '../src/documents/document-repository';
import { recordEnviado, recordFinal } from '../src/hacienda/record-transitions';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'S3cr3t-Hacienda!';

let fake: FakeHacienda;
let ctx: TestApp;
beforeAll(async () => {
  fake = new FakeHacienda();
  await fake.start();
  fake.users.set(USER, PASSWORD);
  ctx = await startTestApp({ hacienda: fake.settings, publicUrl: 'http://callbacks.localhost:4001' });
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody({ usuarioHacienda: USER }))).status).toBe(
    200,
  );
});
afterAll(async () => {
  await ctx.close();
  await fake.stop();
});

async function submit(n: number): Promise<{ clave: string; id: string }> {
  const res = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', n));
  expect(res.status).toBe(200);
  const r = await ctx.db.query<{ id: string }>('SELECT id FROM documents WHERE clave = $1', [res.body.clave]);
  return { clave: res.body.clave, id: r.rows[0]!.id };
}

async function state(id: string) {
  const r = await ctx.db.query<{ estado: string; error_cause: string | null; submit_attempts: number }>(
    'SELECT estado, error_cause, submit_attempts FROM documents WHERE id = $1',
    [id],
  );
  return r.rows[0]!;
}

/** Runs the worker until `done` holds (jobs due now or soon), without sleeping longer than the schedules. */
async function drive(done: () => Promise<boolean>, limit = 200): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await done()) return;
    const ran = await ctx.worker.runOnce();
    if (ran === 0) await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the document did not reach the expected state');
}

const events = (id: string) => withTenant(ctx.db, 'acme', (tx) => listEvents(tx, 'acme', id));

describe('Hacienda follow-up (fake Hacienda)', () => {
  it('when recepción takes the document and then accepts it, then enviado → aceptado with one event each', async () => {
    const { clave, id } = await submit(1);
    await drive(async () => (await state(id)).estado === 'enviado');
    // Counted in the transaction that recorded enviado.
    expect((await state(id)).submit_attempts).toBe(1);
    const sent = fake.submissions.at(-1)!;
    expect(sent.body).toMatchObject({
      clave,
      emisor: { tipoIdentificacion: '02', numeroIdentificacion: '3101123456' },
      receptor: { tipoIdentificacion: '02', numeroIdentificacion: '3101779527' },
      callbackUrl: expect.stringMatching(
        /^http:\/\/callbacks\.localhost:4001\/hacienda\/callback\/[\w-]{43}$/,
      ),
    });
    const xml = Buffer.from(String(sent.body.comprobanteXml), 'base64').toString('utf8');
    const stored = await request(ctx.app)
      .get(`/api/descargar/${clave}/xml`)
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`);
    expect(stored.status).toBe(200);
    expect(stored.headers['content-type']).toMatch(/^application\/xml/);
    expect(stored.headers['content-disposition']).toBe(`attachment; filename="${clave}.xml"`);
    expect(stored.text).toBe(xml);
    const early = await request(ctx.app)
      .get(`/api/descargar/${clave}/respuesta`)
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`);
    expect(early.status).toBe(404);

    fake.received.get(clave)!.estado = 'aceptado';
    await drive(async () => (await state(id)).estado === 'aceptado');
    expect((await events(id)).map((e) => e.estado)).toEqual(['pendiente', 'enviado', 'aceptado']);
    const webhook = await getJob(ctx.db, { key: `webhook:${id}:aceptado` });
    expect(webhook).toMatchObject({
      queue: 'webhook.deliver',
      payload: { tenantId: 'acme', documentId: id },
    });
    // The fake's answer is not a real MensajeHacienda: it is stored and its findings are kept.
    const r = await ctx.db.query<{ respuesta_xml: string; respuesta_verificacion: { valid: boolean } }>(
      'SELECT respuesta_xml, respuesta_verificacion FROM documents WHERE id = $1',
      [id],
    );
    expect(r.rows[0]!.respuesta_xml).toBe('<MensajeHacienda/>');
    expect(r.rows[0]!.respuesta_verificacion.valid).toBe(false);
    expect(() => readMensajeHacienda('<MensajeHacienda/>')).toThrow();
  });

  it('when recepción answers 503 twice, then the submission is retried until it is taken', async () => {
    const fail = (_req: Request, res: Response) => void res.status(503).end();
    fake.recepcionScript.push(fail, fail);
    const { id } = await submit(2);
    await drive(async () => (await state(id)).estado === 'enviado');
    expect((await state(id)).submit_attempts).toBe(3);
  });

  it('when recepción answers 401, then the token is renewed and the submission retried once at once', async () => {
    fake.recepcionScript.push((_req, res) => void res.status(401).end());
    const grants = fake.grants.length;
    const { id } = await submit(3);
    await drive(async () => (await state(id)).estado === 'enviado');
    expect(fake.grants.length).toBeGreaterThan(grants);
    expect((await state(id)).submit_attempts).toBe(2);
  });

  it('when recepción refuses with 400, then error with X-Error-Cause and a final event', async () => {
    fake.recepcionScript.push(
      (_req, res) => void res.status(400).set('X-Error-Cause', 'El emisor no esta autorizado').end(),
    );
    const { clave, id } = await submit(4);
    await drive(async () => (await state(id)).estado === 'error');
    expect((await state(id)).error_cause).toBe('El emisor no esta autorizado');
    expect((await events(id)).map((e) => e.estado)).toEqual(['pendiente', 'error']);
    const found = await post(ctx, 'acme', '/api/consultar/documento', { clave });
    expect(found.body.data).toMatchObject({
      estado: 'error',
      mensajeHacienda: { errorCause: 'El emisor no esta autorizado' },
      intentos: 1,
    });
  });

  it('when "ya fue recibido" comes back, then the document is enviado', async () => {
    const { clave, id } = await submit(5);
    fake.recepcionScript.push(
      (_req, res) =>
        void res
          .status(400)
          .set('X-Error-Cause', `El comprobante con la Clave [${clave}] ya fue recibido`)
          .end(),
    );
    await drive(async () => (await state(id)).estado === 'enviado');
  });

  it('when a second run records enviado for a document already enviado, then its submission is counted and no event repeats', async () => {
    const { id } = await submit(9);
    await drive(async () => (await state(id)).estado === 'enviado');
    expect((await state(id)).submit_attempts).toBe(1);
    await recordEnviado(
      ctx.submission,
      { tenantId: 'acme', documentId: id },
      new Date(),
      'recepcion accepted 202',
      { submitAttempt: true },
    );
    expect((await state(id)).submit_attempts).toBe(2);
    expect((await events(id)).map((e) => e.estado)).toEqual(['pendiente', 'enviado']);
  });

  it('when a second run records a final state for a document already final, then its submission is counted and nothing else changes', async () => {
    const { clave, id } = await submit(11);
    await drive(async () => (await state(id)).estado === 'enviado');
    fake.received.get(clave)!.estado = 'aceptado';
    await drive(async () => (await state(id)).estado === 'aceptado');
    const before = await state(id);
    const jobs = () =>
      ctx.db.query("SELECT key FROM jobs WHERE payload->>'documentId' = $1 ORDER BY key", [id]);
    const jobsBefore = (await jobs()).rows;
    const late = await recordFinal(
      ctx.submission,
      { tenantId: 'acme', documentId: id },
      { estado: 'error', errorCause: 'late answer' },
      'recepcion rejected 400',
      { submitAttempt: true },
    );
    expect(late).toBe(false);
    expect(await state(id)).toEqual({ ...before, submit_attempts: before.submit_attempts + 1 });
    expect((await events(id)).map((e) => e.estado)).toEqual(['pendiente', 'enviado', 'aceptado']);
    expect((await jobs()).rows).toEqual(jobsBefore);
  });

  it('when the status follow-up already waits as enviado is recorded (the callback came first), then it is brought forward', async () => {
    const { id } = await submit(10);
    // What the callback route leaves when Hacienda answers before enviado is recorded: the follow-up,
    // which then found the document still pendiente and put itself off.
    await ctx.db.query(
      `INSERT INTO jobs (queue, key, payload, run_at, tenant)
       VALUES ('hacienda.status', $1, $2::jsonb, now() + interval '1 hour', 'acme')`,
      [`status:${id}`, JSON.stringify({ tenantId: 'acme', documentId: id })],
    );
    const before = Date.now();
    await recordEnviado(
      ctx.submission,
      { tenantId: 'acme', documentId: id },
      new Date(before + 60_000),
      'ok',
    );
    const job = await getJob(ctx.db, { key: `status:${id}` });
    expect(job?.runAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(job?.runAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    const jobs = await ctx.db.query('SELECT id FROM jobs WHERE key = $1', [`status:${id}`]);
    expect(jobs.rowCount).toBe(1);
    expect((await events(id)).map((e) => e.estado)).toEqual(['pendiente', 'enviado']);
  });

  it('when the callback arrives on a non-tenant host, then it brings the status check forward, never trusting its body', async () => {
    const { clave, id } = await submit(6);
    await drive(async () => (await state(id)).estado === 'enviado');
    // Far in the future: only the callback can make it due now.
    await ctx.db.query("UPDATE jobs SET run_at = now() + interval '1 hour' WHERE key = $1", [`status:${id}`]);
    fake.received.get(clave)!.estado = 'rechazado';
    const url = new URL(String(fake.submissions.at(-1)!.body.callbackUrl));
    const lie = { clave, 'ind-estado': 'aceptado', 'respuesta-xml': 'bm90IHRydXN0ZWQ=' };
    const cb = await request(ctx.app).post(url.pathname).set('Host', 'callbacks.localhost:4001').send(lie);
    expect(cb.status).toBe(200);
    // The token is the document's only key for this route: the access line names the path without it.
    const token = url.pathname.split('/').at(-1)!;
    expect(token.length).toBeGreaterThanOrEqual(40);
    expect(ctx.log.text).toContain('/hacienda/callback/[REDACTED]');
    expect(ctx.log.text).not.toContain(token);
    const job = await getJob(ctx.db, { key: `status:${id}` });
    expect(job!.runAt.getTime()).toBeLessThanOrEqual(Date.now());
    await drive(async () => (await state(id)).estado !== 'enviado');
    expect((await state(id)).estado).toBe('rechazado');
  });

  it('when a callback token is unknown or malformed, then 404 and nothing happens', async () => {
    const unknown = await request(ctx.app)
      .post(`/hacienda/callback/${'A'.repeat(43)}`)
      .set('Host', 'callbacks.localhost')
      .send({});
    expect(unknown.status).toBe(404);
    const malformed = await request(ctx.app).post('/hacienda/callback/..%2f..').set('Host', 'acme.localhost');
    expect(malformed.status).toBe(404);
  });

  it('when a worker dies mid-job, then another claims it after the lease and the final state is logged once', async () => {
    const { clave, id } = await submit(7);
    // A worker claims the submission and dies before recording anything: its claim stays, lease running.
    const dead = await ctx.db.query(
      `UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = 'w-dead',
         locked_until = now() + interval '150 milliseconds' WHERE key = $1 RETURNING id`,
      [`submit:${id}`],
    );
    expect(dead.rowCount).toBe(1);
    await drive(async () => (await state(id)).estado === 'enviado');
    fake.received.get(clave)!.estado = 'aceptado';
    // The status job is also claimed by a dying worker once, and replayed by the live one.
    await ctx.db.query(
      `UPDATE jobs SET state = 'running', locked_by = 'w-dead', locked_until = now() + interval '150 milliseconds'
       WHERE key = $1`,
      [`status:${id}`],
    );
    await drive(async () => (await state(id)).estado === 'aceptado');
    // A replay of the finished status job changes nothing.
    await ctx.db.query("UPDATE jobs SET state = 'pending', run_at = now() WHERE key = $1", [`status:${id}`]);
    await ctx.worker.runOnce();
    expect((await events(id)).map((e) => e.estado)).toEqual(['pendiente', 'enviado', 'aceptado']);
  });
});
