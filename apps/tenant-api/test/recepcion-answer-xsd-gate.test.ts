// The MensajeReceptor the inbox signs to answer a received document goes through the XSD gate of every signed
// document (docs/decisions/0055) against MensajeReceptor_V4.4.xsd: one the XSD refuses is a 400 naming the
// element, nothing is stored, the received document stays unanswered and the number stays free.
import { rmSync } from 'node:fs';
import { openP12 } from '@cr/hacienda-xml';
import { signedMensajeReceptor } from '@cr/hacienda-xml/src/testing/signature-corpus';
import { makeTestP12 } from '@cr/hacienda-xml/src/testing/test-certificate';
import { xsdDir } from '@cr/testkit';
import { checkSignedAgainst } from '../src/documents/xsd-gate';
import { get as getAs, post } from './support/client';
import { RECEIVER_ID, b64, registerReceiver, supplierInvoice } from './support/supplier-documents';
import { type TestApp, startTestApp } from './support/test-app';
import { capturingLogger, refusalOf, validatorFor, xsdDirWithShorterLimit } from './support/xsd-gate';

jest.setTimeout(120_000);

const MR_XSD = 'MensajeReceptor_V4.4.xsd';

describe('checkSignedAgainst MensajeReceptor_V4.4.xsd', () => {
  const { p12, pin } = makeTestP12({ subjectSerial: 'CPJ-3-101-779527', commonName: 'PIXDEA & ASOCIADOS' });
  const xml = signedMensajeReceptor(openP12(p12, pin));

  it('when the signed MensajeReceptor is valid, then it passes', async () => {
    const { logger } = capturingLogger();
    await expect(
      checkSignedAgainst({ xsd: validatorFor(xsdDir()), logger }, MR_XSD, xml),
    ).resolves.toBeUndefined();
  });

  it('when the signed MensajeReceptor breaks its XSD, then 400 bad_request naming the element, and a warning', async () => {
    const { log, logger } = capturingLogger();
    const bad = xml.replace('<CondicionImpuesto>01<', '<CondicionImpuesto>09<');
    expect(bad).not.toBe(xml);
    const err = await refusalOf(checkSignedAgainst({ xsd: validatorFor(xsdDir()), logger }, MR_XSD, bad));
    expect(err.code).toBe('bad_request');
    expect(err.message).toMatch(
      /^the document does not validate against the official MensajeReceptor_V4\.4\.xsd: CondicionImpuesto: \[facet 'enumeration'\] The value '09'/,
    );
    expect(err.details).toEqual([{ path: 'CondicionImpuesto', reason: expect.stringContaining("'09'") }]);
    expect(log.text).toMatch(/does not validate against its XSD/);
  });

  it('when the XSDs are not there, then it passes unvalidated and logs an error naming the schema', async () => {
    const { log, logger } = capturingLogger();
    const deps = { xsd: validatorFor('/nonexistent/xsd'), logger };
    const bad = xml.replace('<CondicionImpuesto>01<', '<CondicionImpuesto>09<');
    await expect(checkSignedAgainst(deps, MR_XSD, bad)).resolves.toBeUndefined();
    const errors = log.lines.filter((l) => l.includes('stored without XSD validation'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(MR_XSD);
  });
});

describe('POST /api/recepcion/documentos/{clave}/respuesta: the XSD gate', () => {
  let ctx: TestApp;
  let dir: string;
  beforeAll(async () => {
    // The official XSDs with MensajeReceptor's DetalleMensaje limited to 20 characters (the contract: 160).
    dir = xsdDirWithShorterLimit(
      MR_XSD,
      /(<xs:element name="DetalleMensaje"[\s\S]*?<xs:maxLength value=")160(")/,
      20,
    );
    ctx = await startTestApp({ xsdDir: dir, checkExonerations: false });
    await registerReceiver(ctx);
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string) => getAs(ctx, 'acme', path);
  const count = async (sql: string) => (await ctx.db.query<{ n: number }>(sql)).rows[0]!.n;

  it('when the contract and the engine accept an answer its XSD refuses, then 400 naming the element, the document stays unanswered, and the number stays free', async () => {
    const fe = supplierInvoice(1);
    await post(ctx, 'acme', '/api/recepcion/documentos', { receptor: RECEIVER_ID, xml: b64(fe.xml) }).expect(
      201,
    );
    const path = `/api/recepcion/documentos/${fe.clave}/respuesta`;

    const refused = await post(ctx, 'acme', path, {
      mensaje: 3,
      detalleMensaje: 'Mercadería no recibida en bodega',
      numeroReferencia: 1,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'bad_request',
      message: expect.stringMatching(
        /^the document does not validate against the official MensajeReceptor_V4\.4\.xsd: DetalleMensaje: \[facet 'maxLength'\]/,
      ),
    });
    expect(refused.body.details).toEqual([
      { path: 'DetalleMensaje', reason: expect.stringContaining("'20'") },
    ]);
    const detail = await get(`/api/recepcion/documentos/${fe.clave}`);
    expect(detail.body.data).toMatchObject({ estado: 'pendiente', respuesta: null });
    expect(await count('SELECT count(*)::int AS n FROM documents')).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM jobs WHERE queue = 'hacienda.submit'")).toBe(0);

    // The same number with a detalle the XSD accepts answers the document: neither a repeat nor a conflict.
    const accepted = await post(ctx, 'acme', path, {
      mensaje: 3,
      detalleMensaje: 'No recibida',
      numeroReferencia: 1,
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toEqual({
      clave: fe.clave,
      mensaje: 3,
      consecutivo: '00100001070000000001',
      estado: 'pendiente',
    });
    const answered = await get(`/api/recepcion/documentos/${fe.clave}`);
    expect(answered.body.data).toMatchObject({
      estado: 'respondiendo',
      respuesta: { mensaje: 3, consecutivo: '00100001070000000001', estado: 'pendiente' },
    });
    expect(await count('SELECT count(*)::int AS n FROM documents')).toBe(1);
  });
});
