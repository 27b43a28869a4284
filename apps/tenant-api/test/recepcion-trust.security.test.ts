// A supplier's upload proves only what its signatures prove, and a signature proves only that whoever holds
// the certificate's key signed. The attack: a "supplier" signs an invoice with a self-made certificate naming
// a real company, and attaches a MensajeHacienda "aceptado" signed with a self-made certificate named like
// Hacienda's seal. Both signatures verify against the certificates they carry. With RECEPCION_CA_BUNDLE and
// HACIENDA_CA_BUNDLE pinned, the findings say which signer chains to a trusted CA and which does not, on the
// real app, its checking threads and database.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SigningKey, openP12 } from '@cr/hacienda-xml';
import { issueTestP12, makeTestCa } from '@cr/hacienda-xml/src/testing/test-certificate';
import request from 'supertest';
import { post } from './support/client';
import {
  RECEIVER_ID,
  SUPPLIER_ID,
  answerFor,
  b64,
  registerReceiver,
  supplierInvoice,
  supplierSigningKey,
} from './support/supplier-documents';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

// One CA issues both Hacienda's seal and the taxpayers' keys, as the sandbox's does: the seal is told apart
// by its subject serialNumber (HACIENDA_SIGNER_ID), not by the chain.
const trustedCa = makeTestCa();
const forgerCa = makeTestCa(); // the same names, another key
const open = (p12: { p12: Buffer; pin: string }): SigningKey => openP12(p12.p12, p12.pin);
const supplierUnderCa = open(
  issueTestP12(trustedCa, {
    subjectSerial: `CPJ-${SUPPLIER_ID.slice(0, 1)}-${SUPPLIER_ID.slice(1, 4)}-${SUPPLIER_ID.slice(4)}`,
    commonName: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA null',
  }),
);
const seal = open(issueTestP12(trustedCa));
const forgedSeal = open(issueTestP12(forgerCa));

let ctx: TestApp;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'recepcion-ca-'));
  writeFileSync(join(dir, 'ca.pem'), trustedCa.certPem);
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

type Finding = { code: string; severity: string; message: string };

async function upload(xml: string, respuestaHacienda?: string): Promise<Finding[]> {
  const res = await post(ctx, 'acme', '/api/recepcion/documentos', {
    receptor: RECEIVER_ID,
    xml: b64(xml),
    ...(respuestaHacienda === undefined ? {} : { respuestaHacienda: b64(respuestaHacienda) }),
  });
  expect(res.status).toBe(201);
  return res.body.data.findings;
}

const about = (findings: Finding[], code: string) => findings.filter((f) => f.code === code);

describe('received documents against the pinned CAs', () => {
  it.each([
    [
      'another TotalFactura',
      105,
      { totalFactura: '1.00000' },
      /its TotalFactura is 1\.00000, the document's TotalComprobante /,
    ],
    [
      'another receptor',
      106,
      { numeroCedulaReceptor: '3101999999' },
      /its receptor is 3101999999, the document's 3101779527/,
    ],
    [
      'another emisor',
      107,
      { numeroCedulaEmisor: '3101999999' },
      /its emisor is 3101999999, the document's 3101123456/,
    ],
  ])(
    'when Hacienda’s genuine "aceptado" under the clave names %s, then it is an error finding, never an acceptance',
    async (_, n, overrides, why) => {
      // What Hacienda accepted under this clave was another document: the supplier signed a second one with it.
      const fe = supplierInvoice(n, {}, supplierUnderCa);
      const findings = await upload(fe.xml, answerFor(fe, seal, 1, overrides));
      expect(about(findings, 'hacienda')).toEqual([
        {
          code: 'hacienda',
          severity: 'error',
          message: expect.stringMatching(/^Hacienda's answer is about another document under this clave: /),
        },
      ]);
      expect(about(findings, 'hacienda')[0]!.message).toMatch(why);
    },
  );

  it('when the supplier signs with a certificate its CA issued, and Hacienda seals the answer, then both are trusted', async () => {
    const fe = supplierInvoice(101, {}, supplierUnderCa);
    const findings = await upload(fe.xml, answerFor(fe, seal));
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(about(findings, 'certificate')).toEqual([
      {
        code: 'certificate',
        severity: 'info',
        message: 'the signing certificate is issued under a trusted CA',
      },
    ]);
    expect(about(findings, 'hacienda')).toEqual([
      {
        code: 'hacienda',
        severity: 'info',
        message: "Hacienda accepted the document (the answer carries Hacienda's seal)",
      },
    ]);
  });

  it('when the certificate naming the supplier is self-made, then the upload is stored with an error finding that says so', async () => {
    const fe = supplierInvoice(102, {}, supplierSigningKey());
    const findings = await upload(fe.xml);
    // The signature itself verifies, and the certificate names the issuer: only the chain gives it away.
    expect(findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'signature', severity: 'info' })]),
    );
    expect(about(findings, 'certificate')).toEqual([
      {
        code: 'certificate',
        severity: 'error',
        message: expect.stringMatching(
          /^the signing certificate is not issued under a trusted CA: the signing certificate \(issued by .+\) does not chain to the pinned CA bundle$/,
        ),
      },
    ]);
    const stored = await request(ctx.app)
      .get(`/api/recepcion/documentos/${fe.clave}`)
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`);
    expect(stored.body.data.findings).toEqual(findings);
  });

  it.each([
    [
      'a self-made CA with the same names as Hacienda’s',
      103,
      () => forgedSeal,
      /does not chain to the pinned CA bundle/,
    ],
    [
      'a taxpayer’s genuine certificate (the CA issues every company’s)',
      104,
      () => supplierUnderCa,
      /belongs to CPJ-3-101-123456, not to CPJ-2-100-042005/,
    ],
  ])(
    'when "aceptado" is signed under %s, then the answer is an error finding, never an acceptance',
    async (_, n, signer, why) => {
      const fe = supplierInvoice(n, {}, supplierUnderCa);
      const findings = await upload(fe.xml, answerFor(fe, signer()));
      expect(about(findings, 'hacienda')).toEqual([
        {
          code: 'hacienda',
          severity: 'error',
          message: expect.stringMatching(/^Hacienda's answer is not validly signed \(untrusted_signer: /),
        },
      ]);
      expect(about(findings, 'hacienda')[0]!.message).toMatch(why);
      expect(about(findings, 'certificate')[0]).toMatchObject({ severity: 'info' });
    },
  );
});
