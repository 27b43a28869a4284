// The planner keeps statistics on the documents columns statements filter, join or sort on, and none on the
// payload read back by id (migration 0097, ADR 0057): an analyse of documents, which on PGlite holds the one
// session, computed them for every column of its sample.
import { insertTestDocument } from './support/documents';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

it('an analyse of documents keeps statistics on keys, states and dates only', async () => {
  for (let n = 1; n <= 30; n++) {
    await insertTestDocument(ctx.db, 'stats', {
      numeroReferencia: n,
      estado: n % 3 ? 'aceptado' : 'enviado',
    });
  }
  await ctx.db.exec('ANALYZE documents');
  const r = await ctx.db.query<{ attname: string }>(
    "SELECT attname FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'documents'",
  );
  const withStatistics = r.rows.map((row) => row.attname);
  expect(withStatistics).toEqual(
    expect.arrayContaining(['id', 'tenant_id', 'clave', 'emisor', 'estado', 'respuesta_xml', 'created_at']),
  );
  for (const payload of [
    'xml',
    'totals',
    'detalle',
    'respuesta_verificacion',
    'respuesta_totales',
    'callback_token_sealed',
    'request_hash',
    'error_cause',
    'fecha_emision_text',
    'correo_copias',
  ]) {
    expect(withStatistics).not.toContain(payload);
  }
});
