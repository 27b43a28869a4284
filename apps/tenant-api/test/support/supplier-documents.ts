// A supplier's signed comprobantes addressed to the tenant's issuer 3101779527 (Pixdea), built and signed
// by the real engine with a Hacienda-shaped key of the supplier 3101123456, dated now in Costa Rica time.
import {
  type BuildMensajeHaciendaOptions,
  Clave,
  Consecutivo,
  Identificacion,
  type SigningKey,
  buildComprobanteXml,
  buildMensajeHacienda,
  buildSignedDocument,
  checkDocument,
  formatCostaRicaDateTime,
  openP12,
  signCanonicalDocument,
} from '@cr/hacienda-xml';
import { ISSUER, invoice } from '@cr/hacienda-xml/src/testing/mothers';
import type { DocumentRequest } from '@cr/contracts';
import { makeP12 } from './certificates';
import { post } from './client';
import { issuerBody } from './issuer-mother';
import type { TestApp } from './test-app';

export const RECEIVER_ID = '3101779527';
export const SUPPLIER_ID = ISSUER.numeroIdentificacion;

let supplierKey: SigningKey | undefined;

/** How many received documents are stored, across tenants (a refusal must leave it unchanged). */
export async function storedReceivedCount(ctx: TestApp): Promise<number> {
  const r = await ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM received_documents');
  return Number(r.rows[0]!.n);
}

export function supplierSigningKey(): SigningKey {
  supplierKey ??= openP12(
    makeP12({ identificacion: Number(SUPPLIER_ID), tipoIdentificacion: 2, pin: '1111' }),
    '1111',
  );
  return supplierKey;
}

/** A signed FE of the supplier to Pixdea, number `n`. */
export function supplierInvoice(
  n: number,
  overrides: Partial<DocumentRequest> = {},
  key = supplierSigningKey(),
) {
  const now = new Date(Date.now() - 5_000);
  return buildSignedDocument({
    document: invoice({ numeroReferencia: n, fechaEmision: formatCostaRicaDateTime(now), ...overrides }),
    issuer: ISSUER,
    key,
    now,
  });
}

/**
 * A signed FE of the supplier to Pixdea, number `n`, whose canonical body is `edit`ed before it is signed:
 * what a foreign system, or a forger holding the supplier's key, might send. The signature covers the edit.
 */
export function supplierInvoiceEdited(
  n: number,
  edit: (body: string, clave: string) => string,
  options: { key?: SigningKey; overrides?: Partial<DocumentRequest> } = {},
) {
  const now = new Date(Date.now() - 5_000);
  const checked = checkDocument(
    invoice({ numeroReferencia: n, fechaEmision: formatCostaRicaDateTime(now), ...options.overrides }),
    { issuer: ISSUER, now },
  );
  if (!checked.ok) throw new Error(`supplier invoice: ${JSON.stringify(checked.issues)}`);
  const doc = checked.value;
  const consecutivo = new Consecutivo({ sucursal: 1, terminal: 1, tipo: doc.tipo, numero: n });
  const clave = Clave.generate({
    fechaEmision: doc.fechaEmision,
    emisor: new Identificacion(ISSUER.tipoIdentificacion, ISSUER.numeroIdentificacion),
    consecutivo,
    situacion: 1,
  });
  const parts = buildComprobanteXml(doc, ISSUER, clave, consecutivo);
  const body = edit(parts.body, clave.value);
  const key = options.key ?? supplierSigningKey();
  return { clave: clave.value, body, xml: signCanonicalDocument({ ...parts, body }, key, { now }) };
}

/**
 * A signed FE of the supplier whose FechaEmision reads `fechaEmision` as written, a date our own engine
 * refuses to issue (its clave cannot hold it; the clave here keeps today's date). Signed after the change,
 * so only the date is wrong.
 */
export function supplierInvoiceDated(n: number, fechaEmision: string, key = supplierSigningKey()) {
  const fe = supplierInvoiceEdited(
    n,
    (body) =>
      body.replace(/<FechaEmision>[^<]*<\/FechaEmision>/, `<FechaEmision>${fechaEmision}</FechaEmision>`),
    { key },
  );
  return { clave: fe.clave, fechaEmision, xml: fe.xml };
}

/** A signed FE of the supplier whose Clave is `edit`ed after it was generated (another issuer, date or number). */
export function supplierInvoiceWithClave(n: number, edit: (clave: string) => string) {
  let edited = '';
  const fe = supplierInvoiceEdited(n, (body, clave) => {
    edited = edit(clave);
    return body.replace(`<Clave>${clave}</Clave>`, `<Clave>${edited}</Clave>`);
  });
  return { clave: edited, xml: fe.xml };
}

export const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** A MensajeHacienda about the supplier's `fe`, "aceptado" (1) or "rechazado" (3), signed with `key`. */
export function answerFor(
  fe: { clave: string; totals: { totalComprobante: string } },
  key: SigningKey,
  mensaje: 1 | 3 = 1,
  overrides: Partial<BuildMensajeHaciendaOptions> = {},
): string {
  return buildMensajeHacienda({
    clave: fe.clave,
    nombreEmisor: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
    tipoIdentificacionEmisor: '02',
    numeroCedulaEmisor: SUPPLIER_ID,
    mensaje,
    texto: mensaje === 1 ? 'aceptado' : 'rechazado',
    totalFactura: fe.totals.totalComprobante,
    key,
    ...overrides,
  });
}

/** The receiving issuer (RECEIVER_ID), registered for `tenant` (default acme) of `app`. */
export async function registerReceiver(app: TestApp, tenant = 'acme'): Promise<void> {
  const registered = await post(
    app,
    tenant,
    '/api/enviar/emisor',
    issuerBody({
      identificacion: Number(RECEIVER_ID),
      usuarioHacienda: 'cpj-3-101-779527@stag.comprobanteselectronicos.go.cr',
    }),
  );
  expect(registered.status).toBe(200);
}
