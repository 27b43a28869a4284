// Every XML the tenant-api signs is validated against its kind's official XSD before it is stored, numbered
// and queued (docs/decisions/0055): a document the XSD refuses is a 400 naming the element, nothing is
// stored and the number stays free. Without the XSDs (HACIENDA_XSD_DIR missing) documents go unvalidated,
// as received ones do, and that is logged as an error.
import { rmSync } from 'node:fs';
import { buildSignedDocument, openP12 } from '@cr/hacienda-xml';
import { ISSUER, invoice, line } from '@cr/hacienda-xml/src/testing/mothers';
import { makeTestP12 } from '@cr/hacienda-xml/src/testing/test-certificate';
import { xsdDir } from '@cr/testkit';
import { checkSignedXml, toXsdIssue } from '../src/documents/xsd-gate';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';
import { capturingLogger, refusalOf, validatorFor, xsdDirWithShorterLimit } from './support/xsd-gate';

jest.setTimeout(120_000);

const FE = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica';

function signedInvoice(): { tipo: string; xml: string } {
  const { p12, pin } = makeTestP12();
  return buildSignedDocument({
    document: invoice({ detalleServicio: [line(1)] }),
    issuer: ISSUER,
    key: openP12(p12, pin),
  });
}

describe('toXsdIssue: libxml2 complaints as {path, reason}', () => {
  it('when libxml2 names an element, then the path is the element without its namespace and long sets are shortened', () => {
    const set = Array.from({ length: 170 }, (_, i) => `'C${i}'`).join(', ');
    const issue = toXsdIssue(
      `line 2: Schemas validity error: Element '{${FE}}CodigoMoneda': [facet 'enumeration'] The value 'ZZZ' is not an element of the set {${set}}.`,
    );
    expect(issue.path).toBe('CodigoMoneda');
    expect(issue.reason).toBe(
      "[facet 'enumeration'] The value 'ZZZ' is not an element of the set {'C0', 'C1', 'C2', 'C3', 'C4', 'C5', 'C6', 'C7', … 170 values}.",
    );
    expect(
      toXsdIssue(`line 2: Schemas validity error: Element '{${FE}}Codigo', attribute 'x': bad.`),
    ).toEqual({
      path: 'Codigo@x',
      reason: 'bad.',
    });
    expect(toXsdIssue('line 2: parser error: PCDATA invalid Char value 1')).toEqual({
      path: '(xml)',
      reason: 'is not well-formed XML: PCDATA invalid Char value 1',
    });
  });
});

describe('checkSignedXml against the official XSDs', () => {
  const signed = signedInvoice();

  it('when the signed XML is valid, then it passes', async () => {
    const { logger } = capturingLogger();
    await expect(checkSignedXml({ xsd: validatorFor(xsdDir()), logger }, signed)).resolves.toBeUndefined();
  });

  it('when the signed XML breaks its XSD, then 400 bad_request naming the element, and a warning', async () => {
    const { log, logger } = capturingLogger();
    const xml = signed.xml.replace(/<CodigoMoneda>CRC</, '<CodigoMoneda>ZZZ<');
    expect(xml).not.toBe(signed.xml);
    const err = await refusalOf(checkSignedXml({ xsd: validatorFor(xsdDir()), logger }, { ...signed, xml }));
    expect(err.code).toBe('bad_request');
    expect(err.message).toMatch(
      /^the document does not validate against the official FacturaElectronica_V4\.4\.xsd: CodigoMoneda: \[facet 'enumeration'\] The value 'ZZZ' is not an element of the set \{'AED', .* … \d+ values\}/,
    );
    expect(err.message.length).toBeLessThan(1_000);
    expect(err.details).toEqual([{ path: 'CodigoMoneda', reason: expect.stringContaining("'ZZZ'") }]);
    expect(log.text).toMatch(/does not validate against its XSD/);
  });

  it('when the signed XML holds a character XML forbids, then 400 saying it is not well-formed', async () => {
    const { logger } = capturingLogger();
    const xml = signed.xml.replace('<Receptor><Nombre>', '<Receptor><Nombre>\u0001');
    expect(xml).not.toBe(signed.xml);
    const err = await refusalOf(checkSignedXml({ xsd: validatorFor(xsdDir()), logger }, { ...signed, xml }));
    expect(err.code).toBe('bad_request');
    expect(err.details).toContainEqual({
      path: '(xml)',
      reason: expect.stringMatching(/^is not well-formed XML/),
    });
  });

  it('when the XSDs are not there, then it passes unvalidated and logs an error once a minute per schema', async () => {
    const { log, logger } = capturingLogger();
    const deps = { xsd: validatorFor('/nonexistent/xsd'), logger };
    const bad = { ...signed, xml: signed.xml.replace(/<CodigoMoneda>CRC</, '<CodigoMoneda>ZZZ<') };
    await expect(checkSignedXml(deps, bad)).resolves.toBeUndefined();
    await expect(checkSignedXml(deps, bad)).resolves.toBeUndefined();
    const errors = log.lines.filter((l) => l.includes('stored without XSD validation'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('FacturaElectronica_V4.4.xsd');
  });
});

describe('POST /api/enviar/items: the XSD gate', () => {
  let ctx: TestApp;
  let dir: string;
  beforeAll(async () => {
    // The official XSDs with FacturaElectronica's Detalle limited to 20 characters (the contract allows 200).
    dir = xsdDirWithShorterLimit(
      'FacturaElectronica_V4.4.xsd',
      /(<xs:element name="Detalle">[\s\S]*?<xs:maxLength value=")200(")/,
      20,
    );
    ctx = await startTestApp({ xsdDir: dir, checkExonerations: false });
    expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async (sql: string) => (await ctx.db.query<{ n: number }>(sql)).rows[0]!.n;

  it('when the contract and the engine accept a document its XSD refuses, then 400 naming the element, nothing stored, and the number stays free', async () => {
    const long = { ...line(1), detalle: 'Servicio profesional de consultoría' };
    const refused = await post(
      ctx,
      'acme',
      '/api/enviar/items',
      documentBody('invoice', 700, { detalleServicio: [long] }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'bad_request',
      message: expect.stringMatching(
        /^the document does not validate against the official FacturaElectronica_V4\.4\.xsd: Detalle: \[facet 'maxLength'\]/,
      ),
    });
    expect(refused.body.details).toEqual([{ path: 'Detalle', reason: expect.stringContaining("'20'") }]);
    expect(await count('SELECT count(*)::int AS n FROM documents')).toBe(0);
    expect(await count("SELECT count(*)::int AS n FROM jobs WHERE queue = 'hacienda.submit'")).toBe(0);

    // The same number with a body the XSD accepts is a new document, not a repeat nor a conflict.
    const accepted = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 700));
    expect(accepted.status).toBe(200);
    expect(accepted.body.message).toMatch(/received; Hacienda's answer will follow/);
    expect(await count('SELECT count(*)::int AS n FROM documents')).toBe(1);
  });
});

describe('POST /api/enviar/items without the XSDs', () => {
  let ctx: TestApp;
  beforeAll(async () => {
    ctx = await startTestApp({ xsdDir: '/nonexistent/xsd', checkExonerations: false });
    expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
  });
  afterAll(() => ctx.close());

  it('when HACIENDA_XSD_DIR is missing, then documents are stored unvalidated and that is logged as an error', async () => {
    expect((await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 1))).status).toBe(200);
    expect((await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 2))).status).toBe(200);
    const errors = ctx.log.lines.filter((l) => l.includes('stored without XSD validation'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/"level":"error"/);
  });
});
