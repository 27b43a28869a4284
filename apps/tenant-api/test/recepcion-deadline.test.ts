// The daily scan's recepcion.deadline events for a document left unanswered: the business days left, and
// once the deadline has passed a negative count (the contract's "negative when overdue"), even when no
// business day has gone by since it, as on the Saturday after a Friday deadline. And the stored deadline
// follows the holiday settings (RECEPCION_HOLIDAYS_ADD/_REMOVE: a decree moving a holiday, ADR 0015).
import type { RecepcionDeadlineEvent } from '@cr/contracts';
import { BusinessCalendar } from '@cr/hacienda-xml';
import { runDeadlineScan } from '../src/recepcion/deadline-job';
import { get, post } from './support/client';
import { RECEIVER_ID, b64, registerReceiver, supplierInvoice } from './support/supplier-documents';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(60_000);

let ctx: TestApp;

beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false });
  await registerReceiver(ctx);
});

afterAll(() => ctx.close());

/** The deadline notices of one document so far, in order: [stage, vence, diasHabilesRestantes]. */
async function noticesOf(clave: string): Promise<Array<[string, string, number]>> {
  const r = await ctx.db.query<{ key: string; payload: unknown }>(
    "SELECT key, payload FROM jobs WHERE key LIKE 'deadline:%' ORDER BY created_at",
  );
  return r.rows.flatMap((row) => {
    const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as {
      event: { body: RecepcionDeadlineEvent };
    };
    const body = payload.event.body;
    return body.clave === clave
      ? [[row.key.split(':')[2]!, body.vence, body.diasHabilesRestantes] as [string, string, number]]
      : [];
  });
}

it('when a Friday deadline passes unanswered, then the overdue event raised on Saturday counts below zero', async () => {
  const fe = supplierInvoice(1, { fechaEmision: '2026-11-23T10:00:00-06:00' });
  const upload = await post(ctx, 'acme', '/api/recepcion/documentos', {
    receptor: RECEIVER_ID,
    xml: b64(fe.xml),
  });
  expect(upload.status).toBe(201);
  // The 8th business day of the month after the emission: 1 December is a holiday, so 2–4 and 7–11 December.
  expect(upload.body.data.vence).toBe('2026-12-11');

  await runDeadlineScan(ctx.recepcion, new Date('2026-12-10T06:00:00-06:00'));
  await runDeadlineScan(ctx.recepcion, new Date('2026-12-12T06:00:00-06:00'));
  expect(await noticesOf(fe.clave)).toEqual([
    ['proximo', '2026-12-11', 1],
    ['vencido', '2026-12-11', -1],
  ]);
});

it('when a holiday is added or removed by the settings after a document was received, then the next scan moves its vence and its notice names the new date', async () => {
  const fe = supplierInvoice(2, { fechaEmision: '2026-10-20T10:00:00-06:00' });
  const upload = await post(ctx, 'acme', '/api/recepcion/documentos', {
    receptor: RECEIVER_ID,
    xml: b64(fe.xml),
  });
  expect(upload.status).toBe(201);
  // The 8th business day of November 2026 (no holiday in it): 2–6 and 9–11 November.
  expect(upload.body.data.vence).toBe('2026-11-11');
  const venceNow = async () =>
    (await get(ctx, 'acme', `/api/recepcion/documentos/${fe.clave}`).expect(200)).body.data.vence;

  // Monday 9 November: two business days left.
  expect(await runDeadlineScan(ctx.recepcion, new Date('2026-11-09T06:00:00-06:00'))).toBe(1);
  // A decree makes Tuesday 10 November a holiday (RECEPCION_HOLIDAYS_ADD=2026-11-10).
  const decreed = { ...ctx.recepcion, calendar: new BusinessCalendar({ add: ['2026-11-10'] }) };
  expect(await runDeadlineScan(decreed, new Date('2026-11-10T06:00:00-06:00'))).toBe(1);
  expect(await venceNow()).toBe('2026-11-12');
  // The setting is taken back the same week: the deadline returns to the law's, and is told again.
  expect(await runDeadlineScan(ctx.recepcion, new Date('2026-11-11T06:00:00-06:00'))).toBe(1);
  expect(await venceNow()).toBe('2026-11-11');

  expect(await noticesOf(fe.clave)).toEqual([
    ['proximo', '2026-11-11', 2],
    ['proximo', '2026-11-12', 2],
    ['proximo', '2026-11-11', 0],
  ]);
});
