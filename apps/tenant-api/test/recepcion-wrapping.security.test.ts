// XML signature wrapping of a supplier's upload. The supplier's signature covers the document minus its
// ds:Signature (URI="" with the enveloped transform), so anything inside ds:Signature, a ds:Object say, is
// unsigned: whoever relays the file (or the supplier, against a document Hacienda saw without it) can add
// there a TotalImpuesto, a Receptor or whole other totals. A reader that takes the first element of a name
// anywhere in the tree reads those, while the signature and the §9 arithmetic vouch for the signed ones.
// On the real app (pinned CAs, a supplier certificate from the pinned CA, so every finding is clean), its
// checking threads and database: what is stored and answered comes only from the signed document.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SigningKey, buildSignedDocument, formatCostaRicaDateTime, openP12 } from '@cr/hacienda-xml';
import { ISSUER, invoice, line } from '@cr/hacienda-xml/src/testing/mothers';
import { issueTestP12, makeTestCa } from '@cr/hacienda-xml/src/testing/test-certificate';
import { get as getAs, post } from './support/client';
import {
  RECEIVER_ID,
  SUPPLIER_ID,
  b64,
  registerReceiver,
  storedReceivedCount,
  supplierInvoice,
  supplierInvoiceEdited,
} from './support/supplier-documents';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

const ca = makeTestCa();
const open = (p12: { p12: Buffer; pin: string }): SigningKey => openP12(p12.p12, p12.pin);
const supplier = open(
  issueTestP12(ca, {
    subjectSerial: `CPJ-${SUPPLIER_ID.slice(0, 1)}-${SUPPLIER_ID.slice(1, 4)}-${SUPPLIER_ID.slice(4)}`,
    commonName: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA null',
  }),
);
const FE_NS = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica';
const TE_NS = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/tiqueteElectronico';
const RECEPTOR = `<Receptor><Nombre>Pixdea SA</Nombre><Identificacion><Tipo>02</Tipo><Numero>${RECEIVER_ID}</Numero></Identificacion></Receptor>`;

let ctx: TestApp;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'recepcion-wrap-'));
  writeFileSync(join(dir, 'ca.pem'), ca.certPem);
  ctx = await startTestApp({
    checkExonerations: false,
    haciendaCaBundle: join(dir, 'ca.pem'),
    recepcionCaBundle: join(dir, 'ca.pem'),
  });
  await registerReceiver(ctx);
});
afterAll(async () => {
  await ctx?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The signed document with `object` added as a ds:Object at the end of its ds:Signature (unsigned). */
function withUnsignedObject(xml: string, object: string): string {
  expect(xml).toContain('</ds:Signature>');
  return xml.replace('</ds:Signature>', `<ds:Object>${object}</ds:Object></ds:Signature>`);
}

/**
 * A signed exempt FE of the supplier to the tenant, number `n`, that carries no TotalImpuesto (the XSD
 * makes it optional; our engine writes 0), signed after leaving it out.
 */
function exemptInvoiceWithoutTax(n: number) {
  const fe = supplierInvoiceEdited(n, (body) => body.replace('<TotalImpuesto>0.00000</TotalImpuesto>', ''), {
    key: supplier,
    overrides: { detalleServicio: [line(1, { codigoTarifa: '10', tarifa: '0' })] },
  });
  expect(fe.body).not.toContain('TotalImpuesto>');
  return { clave: fe.clave, xml: fe.xml, total: /<TotalComprobante>([^<]*)</.exec(fe.body)![1]! };
}

/** A signed document of the supplier, number `n`, as the engine issues it (dated a few seconds ago). */
function signed(n: number, overrides: Parameters<typeof invoice>[0]) {
  const now = new Date(Date.now() - 5_000);
  return buildSignedDocument({
    document: invoice({ numeroReferencia: n, fechaEmision: formatCostaRicaDateTime(now), ...overrides }),
    issuer: ISSUER,
    key: supplier,
    now,
  });
}

const upload = (xml: string) =>
  post(ctx, 'acme', '/api/recepcion/documentos', { receptor: RECEIVER_ID, xml: b64(xml) });

const get = (path: string) => getAs(ctx, 'acme', path);

const storedCount = () => storedReceivedCount(ctx);

describe('a supplier document with unsigned content inside its ds:Signature', () => {
  it('when an exempt invoice carries a TotalImpuesto in a ds:Object, then none is stored and the answer claims no tax credit', async () => {
    const fe = exemptInvoiceWithoutTax(301);
    const xml = withUnsignedObject(
      fe.xml,
      `<W xmlns="${FE_NS}"><TotalImpuesto>65000.00000</TotalImpuesto></W>`,
    );
    const res = await upload(xml);
    expect(res.status).toBe(201);
    // Everything the findings vouch for is the signed document (no answer of Hacienda: its one warning), and
    // so is what is stored.
    expect(res.body.data.findings.filter((f: { severity: string }) => f.severity === 'error')).toEqual([]);
    expect(res.body.data.findings).toEqual(
      expect.arrayContaining([
        { code: 'xsd', severity: 'info', message: 'valid against FacturaElectronica_V4.4.xsd' },
        { code: 'arithmetic', severity: 'info', message: 'lines and totals add up (§9)' },
      ]),
    );
    expect(res.body.data).toMatchObject({ clave: fe.clave, impuestos: null, total: fe.total });

    const answered = await post(ctx, 'acme', `/api/recepcion/documentos/${fe.clave}/respuesta`, {
      mensaje: 1,
      condicionImpuesto: '01',
      numeroReferencia: 301,
    });
    expect(answered.status).toBe(202);
    const mr = await get(`/api/descargar/${fe.clave}/xml`);
    expect(mr.text).toContain('<MensajeReceptor');
    expect(mr.text).not.toContain('65000');
    expect(mr.text).not.toMatch(/<MontoTotalImpuesto>/);
  });

  it('when a ticket that names no receptor carries the tenant as Receptor in a ds:Object, then 400 naming xml, nothing stored', async () => {
    const te = signed(302, { tipoDoc: '4', receptor: '' });
    expect(te.xml).toContain('<TiqueteElectronico');
    expect(te.xml).not.toContain('<Receptor>');
    const before = await storedCount();
    const res = await upload(withUnsignedObject(te.xml, `<W xmlns="${TE_NS}">${RECEPTOR}</W>`));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      message: 'xml: the document names no receptor; it cannot be received',
    });
    expect(await storedCount()).toBe(before);
  });

  it('when an invoice to someone else has its ds:Signature moved first, holding the tenant as Receptor and other totals, then 400 naming xml, nothing stored', async () => {
    const fe = supplierInvoice(
      303,
      {
        receptor: {
          nombre: 'Otra SA',
          identificacion: { tipo: '02', numero: '3101999999' },
          correoElectronico: 'otra@example.com',
        },
      },
      supplier,
    );
    const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(fe.xml)![0];
    const wrapped = `<W xmlns="${FE_NS}">${RECEPTOR}<ResumenFactura><CodigoTipoMoneda><CodigoMoneda>USD</CodigoMoneda><TipoCambio>500</TipoCambio></CodigoTipoMoneda><TotalImpuesto>65000.00000</TotalImpuesto><TotalComprobante>565000.00000</TotalComprobante></ResumenFactura></W>`;
    const moved = withUnsignedObject(signature, wrapped);
    const xml = fe.xml.replace(signature, '').replace(/(<FacturaElectronica[^>]*>)/, `$1${moved}`);
    expect(xml.indexOf('<ds:Signature')).toBeLessThan(xml.indexOf('<Clave>'));
    const before = await storedCount();
    const res = await upload(xml);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      message:
        "xml: ds:Signature is not the root element's last element, where a signed comprobante carries it",
    });
    expect(await storedCount()).toBe(before);
  });
});
