// End to end against the real hacienda-sandbox app: an invoice whose lines carry several taxes (selectivo,
// alcohol, cement, IVA on the enlarged base, an exonerated IVA) and several discounts (a regalía among them)
// goes through POST /api/enviar/items, is judged by the sandbox with the §9 arithmetic of every tax, ends
// aceptado, and the client's webhook receives a signed event; the stored XML passes the XSD and xmlsec1.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { taxedLine } from '@cr/hacienda-xml/src/testing/tax-mothers';
import { checkTools, xmlsecErrors, xsdErrors } from '@cr/hacienda-xml/src/testing/tools';
import { type AppProcess, REPO_ROOT, requireResource } from '@cr/testkit';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { haciendaSettingsFor, startFlowSandbox, sandboxAdmin } from './support/hacienda-sandbox';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(240_000);

const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'S3cr3t-Hacienda!';
const PIN = '4821';
const GOODS = '2132100000100';
const IVA13 = { codigo: '01', codigoTarifa: '08', tarifa: '13' } as const;

const sandboxPresent = existsSync(join(REPO_ROOT, 'apps', 'hacienda-sandbox', 'src', 'main.ts'));
const run = requireResource('apps/hacienda-sandbox (on main)', sandboxPresent);
const tools = run ? checkTools(['xmllint', 'xmlsec1']) : { ok: false };
const describeIf = run ? describe : describe.skip;

let sandbox: AppProcess;
let ctx: TestApp;
let dataDir: string;
let receiver: WebhookReceiver;
let secret: string;

const admin = (path: string, body: unknown) => sandboxAdmin(sandbox.url, path, body);

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} never came\n${sandbox.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Several taxes and discounts per line; every amount the client sends is the engine's. */
function multiTaxInvoice(numeroReferencia: number) {
  return documentBody('invoice', numeroReferencia, {
    detalleServicio: [
      taxedLine(1, {
        cabys: GOODS,
        cantidad: 12,
        precio: '1500.00',
        descuentos: [
          { montoDescuento: '1500.00', codigoDescuento: '01', naturalezaDescuento: 'Una unidad de regalía' },
          { montoDescuento: '300.00', codigoDescuento: '05' },
        ],
        impuestos: [
          { codigo: '02', tarifa: '10' },
          {
            codigo: '04',
            datosImpuestoEspecifico: {
              cantidadUnidadMedida: '0.75',
              porcentaje: '12.5',
              impuestoUnidad: '5.23',
            },
          },
          IVA13,
        ],
      }),
      taxedLine(2, {
        cabys: GOODS,
        cantidad: 40,
        precio: '7200.00',
        descuentos: [{ montoDescuento: '7200.00', codigoDescuento: '04' }],
        impuestos: [{ codigo: '12', tarifa: '5' }, IVA13],
      }),
      taxedLine(3, {
        cantidad: 2,
        precio: '25000.00',
        impuestos: [
          {
            ...IVA13,
            exoneracion: {
              tipoDocumento: '03',
              numeroDocumento: 'LEY-7210-ART-20',
              nombreInstitucion: '01',
              fechaEmision: '2026-01-15T00:00:00',
              porcentajeExoneracion: 6.5,
              articulo: '20',
              inciso: 1,
            },
          },
        ],
      }),
    ],
  });
}

describeIf('several taxes per line end to end with the hacienda-sandbox', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'taxes-sandbox-'));
    sandbox = await startFlowSandbox(dataDir, 180_000);
    ctx = await startTestApp({
      hacienda: haciendaSettingsFor(sandbox.url),
      haciendaTimeoutMs: 5_000,
      haciendaCaBundle: join(dataDir, 'keys', 'ca-cert.pem'),
      startWorker: true,
    });
    receiver = await new WebhookReceiver().start();
    await admin('/sandbox/usuarios', { username: USER, password: PASSWORD });
    const cert = await admin('/sandbox/certificados', {
      identificacion: '3101123456',
      tipoIdentificacion: '02',
      nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
      pin: PIN,
    });
    const registered = await post(
      ctx,
      'acme',
      '/api/enviar/emisor',
      issuerBody({ usuarioHacienda: USER, pinCertificado: PIN, certificadoHacienda: String(cert.p12) }),
    );
    expect(registered.status).toBe(200);
    const hook = await post(ctx, 'acme', '/api/configurar/webhook', { url: receiver.url });
    expect(hook.status).toBe(200);
    secret = hook.body.data.secret;
  });
  afterAll(async () => {
    await receiver?.stop();
    await ctx?.close();
    await sandbox?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when an invoice with several taxes and discounts per line is posted, then it ends aceptado and a signed webhook reports it', async () => {
    const res = await post(ctx, 'acme', '/api/enviar/items', multiTaxInvoice(1));
    expect(res.status).toBe(200);
    const clave: string = res.body.clave;
    const final = await until('a final state', async () => {
      const r = await post(ctx, 'acme', '/api/consultar/documento', { clave });
      return ['aceptado', 'rechazado', 'error'].includes(r.body.data.estado) ? r.body.data : undefined;
    });
    expect(final).toMatchObject({ estado: 'aceptado', mensajeHacienda: { mensaje: 1 } });
    const hook = await until('the webhook', async () =>
      receiver.received.find(
        (h) => JSON.parse(h.body).clave === clave && JSON.parse(h.body).estado === 'aceptado',
      ),
    );
    expect(receiver.verifies(hook, secret)).toBe(true);
    expect(JSON.parse(hook.body)).toMatchObject({ folioType: 'INVOICE', estado: 'aceptado' });
    const row = await ctx.db.query<{ xml: string }>('SELECT xml FROM documents WHERE clave = $1', [clave]);
    const xml = row.rows[0]!.xml;
    // Every tax of every line reached Hacienda, with its own desglose entry.
    expect(xml.match(/<Impuesto>/g)).toHaveLength(6);
    for (const code of ['02', '04', '12'])
      expect(xml).toContain(`<TotalDesgloseImpuesto><Codigo>${code}</Codigo>`);
    if (tools.ok) {
      expect(xsdErrors(xml, 'FacturaElectronica_V4.4.xsd')).toBe('');
      expect(xmlsecErrors(xml)).toBe('');
    }
  });
});
