// Receiving end to end against the real hacienda-sandbox process: another tenant's issuer (the supplier)
// issues FEs to our issuer; POST /api/recepcion/sincronizar imports them from GET /comprobantes, verified;
// each is answered with one of the three messages, and each MensajeReceptor (XSD + xmlsec1) reaches
// aceptado at Hacienda with a signed RECEIVER_MESSAGE webhook; the deadline job warns about the one left.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMensajeHacienda, parseMensajeReceptor } from '@cr/hacienda-xml';
import { checkTools, xmlsecErrors, xsdErrors } from '@cr/hacienda-xml/src/testing/tools';
import { type AppProcess, REPO_ROOT, requireResource } from '@cr/testkit';
import { runDeadlineScan } from '../src/recepcion/deadline-job';
import { get as getAs, post } from './support/client';
import { haciendaSettingsFor, startFlowSandbox, sandboxAdmin } from './support/hacienda-sandbox';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(900_000);

const SUPPLIER_USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const RECEIVER_USER = 'cpj-3-101-779527@stag.comprobanteselectronicos.go.cr';
const RECEIVER_ID = '3101779527';
const PASSWORD = 'S3cr3t-Hacienda!';
const PIN = '4821';

const sandboxPresent = existsSync(join(REPO_ROOT, 'apps', 'hacienda-sandbox', 'src', 'main.ts'));
const run = requireResource('apps/hacienda-sandbox', sandboxPresent);
const tools = run ? checkTools(['xmllint', 'xmlsec1']) : { ok: false };
const describeIf = run ? describe : describe.skip;

let sandbox: AppProcess;
let ctx: TestApp;
let dataDir: string;
let receiver: WebhookReceiver;
let secret: string;

const admin = (path: string, body: unknown) => sandboxAdmin(sandbox.url, path, body);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not happen\n${sandbox.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const get = (tenant: string, path: string) => getAs(ctx, tenant, path);

describeIf('receiving end to end with the hacienda-sandbox', () => {
  const issued: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'recepcion-sandbox-'));
    sandbox = await startFlowSandbox(dataDir, 480_000);
    ctx = await startTestApp({
      hacienda: haciendaSettingsFor(sandbox.url),
      haciendaTimeoutMs: 5_000,
      startWorker: true,
      // As `pnpm start` does: the sandbox's CA issues Hacienda's seal and every taxpayer's key.
      haciendaCaBundle: join(dataDir, 'keys', 'ca-cert.pem'),
      recepcionCaBundle: join(dataDir, 'keys', 'ca-cert.pem'),
    });
    receiver = await new WebhookReceiver().start();
    for (const [user, id, nombre, tenant] of [
      [SUPPLIER_USER, '3101123456', 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA', 'supplier'],
      [RECEIVER_USER, RECEIVER_ID, 'PIXDEA SOCIEDAD ANONIMA', 'acme'],
    ] as const) {
      await admin('/sandbox/usuarios', { username: user, password: PASSWORD });
      const cert = await admin('/sandbox/certificados', {
        identificacion: id,
        tipoIdentificacion: '02',
        nombre,
        pin: PIN,
      });
      const registered = await post(
        ctx,
        tenant,
        '/api/enviar/emisor',
        issuerBody({
          identificacion: Number(id),
          usuarioHacienda: user,
          pinCertificado: PIN,
          certificadoHacienda: String(cert.p12),
        }),
      );
      expect(registered.status).toBe(200);
    }
    const hook = await post(ctx, 'acme', '/api/configurar/webhook', { url: receiver.url });
    expect(hook.status).toBe(200);
    secret = hook.body.data.secret;
    // The supplier (another tenant of the platform) issues four invoices to our issuer.
    for (let n = 1; n <= 4; n++) {
      const res = await post(ctx, 'supplier', '/api/enviar/items', documentBody('invoice', n));
      expect(res.status).toBe(200);
      issued.push(res.body.clave);
    }
    for (const clave of issued) {
      await until(`supplier document ${clave} aceptado`, async () => {
        const r = await post(ctx, 'supplier', '/api/consultar/documento', { clave });
        return r.body.data.estado === 'aceptado' ? true : undefined;
      });
    }
  });
  afterAll(async () => {
    await receiver?.stop();
    await ctx?.close();
    await sandbox?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('when our issuer synchronizes, then the four documents are imported and verified, and a second run imports nothing', async () => {
    const sync = await post(ctx, 'acme', '/api/recepcion/sincronizar', { receptor: RECEIVER_ID });
    expect(sync.status).toBe(200);
    expect(sync.body.data.omitidos).toEqual([]);
    expect([...sync.body.data.importados].sort()).toEqual([...issued].sort());
    for (const clave of issued) {
      const d = await get('acme', `/api/recepcion/documentos/${clave}`);
      expect(d.body.data).toMatchObject({
        clave,
        origen: 'sincronizacion',
        estado: 'pendiente',
        receptor: RECEIVER_ID,
      });
      const errors = d.body.data.findings.filter((f: { severity: string }) => f.severity === 'error');
      expect(errors).toEqual([]);
      expect(d.body.data.findings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ code: 'xsd', severity: 'info' }),
          expect.objectContaining({ code: 'certificate', severity: 'info' }),
          // Hacienda's signed answer came with it (GET /recepcion/{clave}): the acceptance is confirmed.
          expect.objectContaining({ code: 'hacienda', severity: 'info' }),
        ]),
      );
    }
    const again = await post(ctx, 'acme', '/api/recepcion/sincronizar', { receptor: RECEIVER_ID });
    expect(again.body.data).toMatchObject({ importados: [], yaRegistrados: 4, listados: 4 });
    // The supplier's tenant received nothing: its issuer is not the receptor.
    expect((await get('supplier', '/api/recepcion/documentos')).body.data).toEqual([]);
  });

  it.each([
    [1, { condicionImpuesto: '01' }],
    [
      2,
      {
        detalleMensaje: 'Llegó la mitad del pedido',
        condicionImpuesto: '05',
        montoTotalImpuestoAcreditar: '100',
      },
    ],
    [3, { detalleMensaje: 'Servicio no prestado' }],
  ] as const)(
    'when the document is answered with Mensaje %s, then Hacienda accepts the MensajeReceptor and a signed webhook reports it',
    async (mensaje, extra) => {
      const clave = issued[mensaje - 1]!;
      const res = await post(ctx, 'acme', `/api/recepcion/documentos/${clave}/respuesta`, {
        mensaje,
        numeroReferencia: 10 + mensaje,
        ...extra,
      });
      expect(res.status).toBe(202);
      const consecutivo: string = res.body.data.consecutivo;
      expect(consecutivo.slice(8, 10)).toBe(`0${4 + mensaje}`);
      const final = await until(`answer to ${clave}`, async () => {
        const r = await post(ctx, 'acme', '/api/consultar/documento', { clave });
        return ['aceptado', 'rechazado', 'error'].includes(r.body.data.estado) ? r.body.data : undefined;
      });
      expect(final).toMatchObject({
        clave,
        estado: 'aceptado',
        tipoDoc: String(4 + mensaje),
        consecutivo,
        mensajeHacienda: { mensaje: 1 },
      });
      const hook = await until('the RECEIVER_MESSAGE webhook', async () =>
        receiver.received.find(
          (h) => JSON.parse(h.body).clave === clave && JSON.parse(h.body).folioType === 'RECEIVER_MESSAGE',
        ),
      );
      expect(receiver.verifies(hook, secret)).toBe(true);
      const event = JSON.parse(hook.body);
      expect(event).toMatchObject({ folioId: `${clave}-${consecutivo}`, estado: 'aceptado' });
      // An answer to a supplier is not mailed to anyone: its acceptance adds the webhook and no e-mail job.
      const followUps = await ctx.db.query<{ key: string }>(
        `SELECT j.key FROM jobs j JOIN documents d ON j.key LIKE '%:' || d.id || ':aceptado'
         WHERE d.clave_recibida = $1 ORDER BY j.key`,
        [clave],
      );
      expect(followUps.rows.map((r) => r.key.split(':')[0])).toEqual(['webhook']);
      const [mr, answer] = event.folioDetails.map((f: { encodedFile: string }) =>
        Buffer.from(f.encodedFile, 'base64').toString('utf8'),
      );
      expect(parseMensajeReceptor(mr)).toMatchObject({
        clave,
        mensaje,
        numeroCedulaReceptor: RECEIVER_ID,
        numeroConsecutivoReceptor: consecutivo,
      });
      expect(parseMensajeHacienda(answer)).toMatchObject({ clave, mensaje: 1 });
      if (tools.ok) {
        expect(xsdErrors(mr, 'MensajeReceptor_V4.4.xsd')).toBe('');
        expect(xmlsecErrors(mr)).toBe('');
      }
      // The event's clave is the received document's: replaying by it sends the same answer's event again.
      const replay = await post(ctx, 'acme', '/api/reenviar/webhook', { clave });
      expect(replay.status).toBe(200);
      const replayed = await until('the replayed RECEIVER_MESSAGE webhook', async () =>
        receiver.received.find((h) => h.id === replay.body.data.eventId),
      );
      expect(receiver.verifies(replayed, secret)).toBe(true);
      expect(JSON.parse(replayed.body)).toMatchObject({
        folioType: 'RECEIVER_MESSAGE',
        folioId: `${clave}-${consecutivo}`,
        clave,
        estado: 'aceptado',
      });
      const detail = await get('acme', `/api/recepcion/documentos/${clave}`);
      expect(detail.body.data).toMatchObject({
        estado: 'respondido',
        respuesta: { mensaje, consecutivo, estado: 'aceptado' },
      });
      expect((await get('acme', `/api/descargar/${clave}/respuesta`)).text).toBe(answer);
      const pdf = await get('acme', `/api/descargar/${clave}/pdf`);
      expect(pdf.status).toBe(409);
      expect(pdf.body.message).toMatch(/is a received document; its answer \(MensajeReceptor\) has no PDF/);
      const twice = await post(ctx, 'acme', `/api/recepcion/documentos/${clave}/respuesta`, {
        mensaje: 3,
        detalleMensaje: 'Otra vez',
        numeroReferencia: 20 + mensaje,
      });
      expect(twice.status).toBe(409);
      // The first request again (its answer lost to a timeout, say) is no second answer: it gets the first
      // one's number with the state it reached, and no second MensajeReceptor goes to Hacienda.
      const again = await post(ctx, 'acme', `/api/recepcion/documentos/${clave}/respuesta`, {
        mensaje,
        numeroReferencia: 10 + mensaje,
        ...extra,
      });
      expect(again.status).toBe(202);
      expect(again.body.data).toEqual({ clave, mensaje, consecutivo, estado: 'aceptado' });
      expect(again.body.message).toBe(
        `MensajeReceptor ${consecutivo} was already signed for this same request (aceptado); nothing was signed again`,
      );
      const answers = await ctx.db.query('SELECT id FROM documents WHERE clave_recibida = $1', [clave]);
      expect(answers.rows).toHaveLength(1);
    },
  );

  it('when Hacienda rejected a supplier document, then synchronizing skips it with the reason and stores nothing', async () => {
    await admin('/sandbox/veredicto', { outcome: 'reject', code: -99, text: 'Rechazo forzado' });
    const res = await post(ctx, 'supplier', '/api/enviar/items', documentBody('invoice', 5));
    expect(res.status).toBe(200);
    const rejected: string = res.body.clave;
    await until(`supplier document ${rejected} rechazado`, async () => {
      const r = await post(ctx, 'supplier', '/api/consultar/documento', { clave: rejected });
      return r.body.data.estado === 'rechazado' ? true : undefined;
    });
    const sync = await post(ctx, 'acme', '/api/recepcion/sincronizar', { receptor: RECEIVER_ID });
    expect(sync.status).toBe(200);
    expect(sync.body.data).toMatchObject({ listados: 5, importados: [], yaRegistrados: 4 });
    expect(sync.body.data.omitidos).toEqual([
      {
        clave: rejected,
        motivo: 'Hacienda rejected it (ind-estado rechazado): it has no tax effect and needs no answer',
      },
    ]);
    expect((await get('acme', `/api/recepcion/documentos/${rejected}`)).status).toBe(404);
  });

  it('when the daily job runs within two business days of vence, then the unanswered document raises a signed recepcion.deadline event', async () => {
    const open = issued[3]!;
    const d = await get('acme', `/api/recepcion/documentos/${open}`);
    const vence: string = d.body.data.vence;
    // The morning of vence itself: no business day left, and the other three are answered.
    expect(await runDeadlineScan(ctx.recepcion, new Date(`${vence}T08:00:00-06:00`))).toBe(1);
    expect(await runDeadlineScan(ctx.recepcion, new Date(`${vence}T09:00:00-06:00`))).toBe(0);
    const hook = await until('the deadline webhook', async () =>
      receiver.received.find((h) => JSON.parse(h.body).type === 'recepcion.deadline'),
    );
    expect(receiver.verifies(hook, secret)).toBe(true);
    expect(JSON.parse(hook.body)).toEqual({
      type: 'recepcion.deadline',
      clave: open,
      receptor: RECEIVER_ID,
      emisor: expect.objectContaining({ numero: '3101123456' }),
      total: d.body.data.total,
      vence,
      diasHabilesRestantes: 0,
    });
  });
});
