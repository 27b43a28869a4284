import { getJob } from '@cr/jobs';
import { post } from './support/client';
import { KINDS, documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

// The machine is shared: starting PGlite and generating RSA keys can take long under load.
jest.setTimeout(120_000);

let ctx: TestApp;
beforeAll(async () => {
  // No Hacienda in this suite: the exoneration kind's authorization check is covered against the sandbox
  // (submission.sandbox and lookups.hacienda tests).
  ctx = await startTestApp({ checkExonerations: false, proveedorSistemas: '3102777888' });
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
});
afterAll(() => ctx.close());

describe('POST /api/enviar/items: happy path', () => {
  it.each(KINDS.map((k, i) => [k, i + 1] as const))(
    'when a valid %s is posted, then 200 with a 50-digit clave, stored pendiente with its submission job',
    async (kind, n) => {
      const res = await post(ctx, 'acme', '/api/enviar/items', documentBody(kind, n));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'success', message: expect.any(String), clave: expect.any(String) });
      expect(res.body.clave).toMatch(/^\d{50}$/);
      const found = await post(ctx, 'acme', '/api/consultar/documento', { clave: res.body.clave });
      expect(found.status).toBe(200);
      expect(found.body.data).toMatchObject({
        clave: res.body.clave,
        emisor: '3101123456',
        numeroReferencia: n,
        estado: 'pendiente',
        mensajeHacienda: { mensaje: null, detalle: [] },
        intentos: 0,
        webhook: { entregas: [] },
      });
      const doc = await ctx.db.query<{ id: string }>('SELECT id FROM documents WHERE clave = $1', [
        res.body.clave,
      ]);
      const job = await getJob(ctx.db, { key: `submit:${doc.rows[0]!.id}` });
      expect(job).toMatchObject({ queue: 'hacienda.submit', state: 'pending' });
    },
  );

  it('when the service has a PROVEEDOR_SISTEMAS, then every signed document names it as ProveedorSistemas', async () => {
    const res = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 90));
    expect(res.status).toBe(200);
    const xml = await ctx.db.query<{ xml: string }>('SELECT xml FROM documents WHERE clave = $1', [
      res.body.clave,
    ]);
    expect(xml.rows[0]!.xml).toContain('<ProveedorSistemas>3102777888</ProveedorSistemas>');
  });
});
