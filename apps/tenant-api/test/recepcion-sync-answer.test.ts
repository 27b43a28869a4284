// POST /api/recepcion/sincronizar reads each new clave's state (GET /recepcion/{clave}) and imports an
// accepted document with Hacienda's answer. An answer that cannot be read must not keep a readable document
// out (every later synchronization would skip it again): it is imported without it, unconfirmed. Hacienda
// here is a fake in this process at the HTTP boundary (its IdP, GET /comprobantes, GET /recepcion/{clave}),
// serving a supplier's real signed invoice and, per test, the answer.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { get, post } from './support/client';
import {
  RECEIVER_ID,
  answerFor,
  b64,
  registerReceiver,
  supplierInvoice,
  supplierInvoiceEdited,
  supplierSigningKey,
} from './support/supplier-documents';
import { haciendaSettingsFor } from './support/hacienda-sandbox';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(60_000);

/** What the fake serves: the listed supplier documents (signed XML by clave) and each one's answer. */
const listed = new Map<string, string>();
const answers = new Map<string, string>();
let hacienda: Server;
let ctx: TestApp;

function json(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  hacienda = createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    if (req.method === 'POST' && url.endsWith('/token')) {
      return json(res, 200, { access_token: 'fake-access-token', expires_in: 300 });
    }
    if (req.method === 'GET' && url.startsWith('/recepcion/v1/comprobantes?')) {
      return json(
        res,
        200,
        [...listed.keys()].map((clave) => ({ clave })),
      );
    }
    const one = /^\/recepcion\/v1\/comprobantes\/(\d{50})$/.exec(url);
    if (req.method === 'GET' && one && listed.has(one[1]!)) {
      return json(res, 200, { clave: one[1], comprobanteXml: b64(listed.get(one[1]!)!) });
    }
    const state = /^\/recepcion\/v1\/recepcion\/(\d{50})$/.exec(url);
    if (req.method === 'GET' && state && answers.has(state[1]!)) {
      return json(res, 200, {
        clave: state[1],
        fecha: '2026-12-07T06:00:00-06:00',
        'ind-estado': 'aceptado',
        'respuesta-xml': answers.get(state[1]!),
      });
    }
    json(res, 404, {});
  });
  await new Promise<void>((resolve) => hacienda.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(hacienda.address() as AddressInfo).port}`;
  ctx = await startTestApp({
    checkExonerations: false,
    hacienda: haciendaSettingsFor(url),
  });
  await registerReceiver(ctx);
});
afterAll(async () => {
  await ctx.close();
  await new Promise<void>((resolve) => hacienda.close(() => resolve()));
});

interface Finding {
  code: string;
  severity: string;
  message: string;
}

async function synchronizeAndRead(clave: string): Promise<Finding[]> {
  const sync = await post(ctx, 'acme', '/api/recepcion/sincronizar', { receptor: RECEIVER_ID }).expect(200);
  expect(sync.body.data).toMatchObject({ importados: [clave], omitidos: [] });
  const stored = await get(ctx, 'acme', `/api/recepcion/documentos/${clave}`).expect(200);
  return (stored.body.data.findings as Finding[]).filter((f) => f.code === 'hacienda');
}

describe('POST /api/recepcion/sincronizar: Hacienda’s answer to an accepted document', () => {
  afterEach(() => {
    listed.clear();
    answers.clear();
  });

  it.each([
    ['is not XML', () => b64('this is not a MensajeHacienda')],
    ['is not Base64', () => 'not base64 at all!'],
  ])(
    'when the answer %s, then the document is still imported, its acceptance not confirmed',
    async (_, answer) => {
      const fe = supplierInvoice(Math.floor(Math.random() * 1e6) + 1);
      listed.set(fe.clave, fe.xml);
      answers.set(fe.clave, answer());
      expect(await synchronizeAndRead(fe.clave)).toEqual([
        expect.objectContaining({ severity: 'warning', message: expect.stringMatching(/not confirmed/) }),
      ]);
    },
  );

  it('when the answer is Hacienda’s MensajeHacienda, then the document is imported with it', async () => {
    const fe = supplierInvoice(Math.floor(Math.random() * 1e6) + 1);
    listed.set(fe.clave, fe.xml);
    // Signed by the supplier's key, not a pinned seal: read and checked, the acceptance named as unsealed.
    answers.set(fe.clave, b64(answerFor(fe, supplierSigningKey())));
    const findings = await synchronizeAndRead(fe.clave);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).not.toMatch(/was not supplied/);
  });

  it('when one listed document holds a NUL, which XML cannot carry, then it is omitted with the reason and the others are imported, on every synchronization', async () => {
    const good = supplierInvoice(Math.floor(Math.random() * 1e6) + 1);
    const bad = supplierInvoiceEdited(Math.floor(Math.random() * 1e6) + 1, (b) =>
      b.replace('<Nombre>', '<Nombre>A\u0000'),
    );
    listed.set(good.clave, good.xml);
    listed.set(bad.clave, bad.xml);
    answers.set(good.clave, b64(answerFor(good, supplierSigningKey())));
    answers.set(bad.clave, b64('not read'));
    const omitted = [{ clave: bad.clave, motivo: expect.stringMatching(/^xml: must not contain the NUL/) }];
    const first = await post(ctx, 'acme', '/api/recepcion/sincronizar', { receptor: RECEIVER_ID }).expect(
      200,
    );
    expect(first.body.data).toMatchObject({ importados: [good.clave], omitidos: omitted });
    const again = await post(ctx, 'acme', '/api/recepcion/sincronizar', { receptor: RECEIVER_ID }).expect(
      200,
    );
    expect(again.body.data).toMatchObject({ importados: [], omitidos: omitted });
    await get(ctx, 'acme', `/api/recepcion/documentos/${good.clave}`).expect(200);
    await get(ctx, 'acme', `/api/recepcion/documentos/${bad.clave}`).expect(404);
  });
});
