// Issue 11.9, the attack: whoever can answer in Hacienda's place (a hijacked DNS name, an intercepting proxy, a
// misconfigured URL) returns "aceptado" with a MensajeHacienda signed under a self-made CA named like
// Hacienda's. With HACIENDA_CA_BUNDLE pinned the answer is refused: the document stays enviado, the refusal is
// logged, and Hacienda's genuine answer, fetched on the next check, is the one recorded.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMensajeHacienda, openP12 } from '@cr/hacienda-xml';
import { issueTestP12, makeTestCa } from '@cr/hacienda-xml/src/testing/test-certificate';
import { getJob } from '@cr/jobs';
import type { Response } from 'express';
import { FakeHacienda } from '../../../packages/hacienda-client/test/fake-hacienda';
import { withTenant } from '../src/db/with-tenant';
import { listEvents } from '../src/documents/document-repository';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'S3cr3t-Hacienda!';

const haciendaCa = makeTestCa();
const forgerCa = makeTestCa(); // the same names as Hacienda's CA, another key
const seal = issueTestP12(haciendaCa);
const forgedSeal = issueTestP12(forgerCa);
const otherTaxpayer = issueTestP12(haciendaCa, {
  subjectSerial: 'CPJ-3-101-999999',
  commonName: 'OTRA null',
});

let fake: FakeHacienda;
let ctx: TestApp;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hacienda-ca-'));
  writeFileSync(join(dir, 'bundle.pem'), haciendaCa.certPem);
  fake = new FakeHacienda();
  await fake.start();
  fake.users.set(USER, PASSWORD);
  ctx = await startTestApp({ hacienda: fake.settings, haciendaCaBundle: join(dir, 'bundle.pem') });
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody({ usuarioHacienda: USER }))).status).toBe(
    200,
  );
});
afterAll(async () => {
  await ctx?.close();
  await fake?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function mensaje(clave: string, signer: { p12: Buffer; pin: string }): string {
  return buildMensajeHacienda({
    clave,
    nombreEmisor: 'ACME SOCIEDAD ANONIMA',
    tipoIdentificacionEmisor: '02',
    numeroCedulaEmisor: '3101123456',
    mensaje: 1,
    totalFactura: '1130',
    key: openP12(signer.p12, signer.pin),
  });
}

/** The next status check answers `estado` with this MensajeHacienda (or none). */
function answerNext(clave: string, estado: string, xml?: string): void {
  fake.statusScript.push((_req, res: Response) => {
    res.json({
      clave,
      'ind-estado': estado.toUpperCase(),
      ...(xml ? { 'respuesta-xml': Buffer.from(xml).toString('base64') } : {}),
    });
  });
}

async function state(id: string): Promise<string> {
  const r = await ctx.db.query<{ estado: string }>('SELECT estado FROM documents WHERE id = $1', [id]);
  return r.rows[0]!.estado;
}

async function drive(done: () => Promise<boolean>, limit = 300): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await done()) return;
    if ((await ctx.worker.runOnce()) === 0) await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the expected state was not reached');
}

let n = 0;
async function sentDocument(): Promise<{ clave: string; id: string }> {
  const res = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', ++n));
  expect(res.status).toBe(200);
  const r = await ctx.db.query<{ id: string }>('SELECT id FROM documents WHERE clave = $1', [res.body.clave]);
  const id = r.rows[0]!.id;
  await drive(async () => (await state(id)) === 'enviado');
  return { clave: res.body.clave, id };
}

describe('MensajeHacienda against the pinned Hacienda CA (issue 11.9)', () => {
  it.each([
    ['signed under a self-made CA with Hacienda’s names', forgedSeal, 'does not chain to the pinned'],
    [
      'signed by another taxpayer the same CA certified',
      otherTaxpayer,
      'CPJ-3-101-999999, not to CPJ-2-100-042005',
    ],
  ])(
    'when "aceptado" comes %s, then it is refused, logged, and the genuine answer lands later',
    async (_what, signer, reason) => {
      const { clave, id } = await sentDocument();
      answerNext(clave, 'aceptado', mensaje(clave, signer));
      await drive(async () => fake.statusScript.length === 0);
      expect(await state(id)).toBe('enviado');
      const events = await withTenant(ctx.db, 'acme', (tx) => listEvents(tx, 'acme', id));
      expect(events.map((e) => e.estado)).toEqual(['pendiente', 'enviado']);
      expect(await getJob(ctx.db, { key: `webhook:${id}:aceptado` })).toBeUndefined();
      const job = await getJob(ctx.db, { key: `status:${id}` });
      expect(job).toMatchObject({ state: 'pending' });
      expect(job!.lastError).toContain('untrusted_signer');
      expect(ctx.log.text).toContain("Hacienda's answer refused");
      expect(ctx.log.text).toContain(reason);

      // Hacienda's own answer on the next check is recorded, verified.
      answerNext(clave, 'aceptado', mensaje(clave, seal));
      await drive(async () => (await state(id)) === 'aceptado');
      const r = await ctx.db.query<{ respuesta_verificacion: { valid: boolean } }>(
        'SELECT respuesta_verificacion FROM documents WHERE id = $1',
        [id],
      );
      expect(r.rows[0]!.respuesta_verificacion.valid).toBe(true);
    },
  );

  it('when a genuine MensajeHacienda of another document, or none at all, comes with "aceptado", then it is refused too', async () => {
    const { clave, id } = await sentDocument();
    const other = `${clave.slice(0, 42)}${clave.slice(42) === '99999999' ? '88888888' : '99999999'}`;
    answerNext(clave, 'aceptado', mensaje(other, seal));
    answerNext(clave, 'aceptado');
    await drive(async () => fake.statusScript.length === 0);
    expect(await state(id)).toBe('enviado');
    expect(ctx.log.text).toContain('clave_mismatch');
    expect(ctx.log.text).toContain('Hacienda answered aceptado without its MensajeHacienda');
  });
});
