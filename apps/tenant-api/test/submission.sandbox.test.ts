// End to end against the real hacienda-sandbox app (a separate process, zero processing delay): each kind
// (the spec's five, ND, FEC, FEE, REP) reaches aceptado with Mensaje 1 and a verified MensajeHacienda, and
// delivers a signed webhook event with its folioType; the stored XML passes the official XSD and xmlsec1; a forced rejection ends rechazado with its findings; injected 5xx, timeouts and
// an IdP outage, and a callback that never comes, still end accepted.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatCostaRicaDateTime } from '@cr/hacienda-xml';
import { checkTools, xmlsecErrors, xsdErrors } from '@cr/hacienda-xml/src/testing/tools';
import { type AppProcess, REPO_ROOT, requireResource } from '@cr/testkit';
import { get, post } from './support/client';
import { haciendaSettingsFor, startFlowSandbox } from './support/hacienda-sandbox';
import { type DocumentKind, FOLIO_TYPE_OF, KINDS, documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(180_000);

const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'S3cr3t-Hacienda!';
const PIN = '4821';

const sandboxPresent = existsSync(join(REPO_ROOT, 'apps', 'hacienda-sandbox', 'src', 'main.ts'));
const run = requireResource('apps/hacienda-sandbox (on main)', sandboxPresent);
const tools = run ? checkTools(['xmllint', 'xmlsec1']) : { ok: false };

let sandbox: AppProcess;
let ctx: TestApp;
let dataDir: string;
let receiver: WebhookReceiver;
let webhookSecret: string;

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

const describeIf = run ? describe : describe.skip;

describeIf('submission end to end with the hacienda-sandbox', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    sandbox = await startFlowSandbox(dataDir, 120_000);
    ctx = await startTestApp({
      hacienda: haciendaSettingsFor(sandbox.url),
      haciendaTimeoutMs: 1_000,
      // As `pnpm start` wires it: Hacienda's answers must chain to the sandbox's CA (issue 11.9).
      haciendaCaBundle: join(dataDir, 'keys', 'ca-cert.pem'),
      startWorker: true,
    });
    await admin('POST', '/sandbox/usuarios', { username: USER, password: PASSWORD });
    // The exoneration kind carries a type 04 authorization: the pipeline confirms it with Hacienda's public
    // API before signing, so it exists there for the receptor and the line's CABYS.
    await admin('POST', '/sandbox/exoneraciones', {
      numeroDocumento: 'AL-00460853-20',
      identificacion: '3101779527',
      porcentajeExoneracion: 13,
      fechaEmision: '2026-01-15',
      fechaVencimiento: new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10),
      cabys: ['8314300000000'],
    });
    const cert = (await admin('POST', '/sandbox/certificados', {
      identificacion: '3101123456',
      tipoIdentificacion: '02',
      nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
      pin: PIN,
    })) as { p12: string };
    const registered = await post(
      ctx,
      'acme',
      '/api/enviar/emisor',
      issuerBody({ usuarioHacienda: USER, pinCertificado: PIN, certificadoHacienda: cert.p12 }),
    );
    expect(registered.status).toBe(200);
    receiver = await new WebhookReceiver().start();
    const configured = await post(ctx, 'acme', '/api/configurar/webhook', { url: receiver.url });
    expect(configured.status).toBe(200);
    webhookSecret = configured.body.data.secret;
  });
  afterAll(async () => {
    await receiver?.stop();
    await ctx?.close();
    await sandbox?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let n = 1;
  async function submitAndWait(
    kind: DocumentKind,
    until = ['aceptado', 'rechazado', 'error'],
    extra: Record<string, unknown> = {},
  ) {
    const res = await post(ctx, 'acme', '/api/enviar/items', { ...documentBody(kind, n++), ...extra });
    expect(res.status).toBe(200);
    const clave: string = res.body.clave;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const found = await post(ctx, 'acme', '/api/consultar/documento', { clave });
      if (until.includes(found.body.data.estado)) return { clave, data: found.body.data };
      if (Date.now() > deadline)
        throw new Error(`${kind} stayed ${found.body.data.estado}\n${sandbox.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function webhookFor(clave: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const hook = receiver.received.find((h) => JSON.parse(h.body).clave === clave);
      if (hook) return hook;
      if (Date.now() > deadline) throw new Error(`no webhook for ${clave}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function eventsOf(clave: string) {
    const r = await ctx.db.query<{ estado: string }>(
      'SELECT e.estado FROM document_events e JOIN documents d ON d.id = e.document_id WHERE d.clave = $1 ORDER BY e.id',
      [clave],
    );
    return r.rows.map((x) => x.estado);
  }

  it.each(KINDS)(
    'when a %s is posted, then it ends aceptado with Mensaje 1, a valid XML and a signed webhook with its folioType',
    async (kind) => {
      const { clave, data } = await submitAndWait(kind);
      expect(data).toMatchObject({ estado: 'aceptado', mensajeHacienda: { mensaje: 1 } });
      const hook = await webhookFor(clave);
      expect(receiver.verifies(hook, webhookSecret)).toBe(true);
      expect(JSON.parse(hook.body)).toMatchObject({
        folioId: clave,
        folioType: FOLIO_TYPE_OF[kind],
        clave,
        estado: 'aceptado',
        // Hacienda's answer first (an accepted document's PDF follows it).
        folioDetails: expect.arrayContaining([{ fileType: 'XML', encodedFile: expect.any(String) }]),
      });
      expect(await eventsOf(clave)).toEqual(['pendiente', 'enviado', 'aceptado']);
      const row = await ctx.db.query<{ xml: string; respuesta_verificacion: { valid: boolean } }>(
        'SELECT xml, respuesta_verificacion FROM documents WHERE clave = $1',
        [clave],
      );
      expect(row.rows[0]!.respuesta_verificacion.valid).toBe(true);
      const xml = row.rows[0]!.xml;
      if (tools.ok) {
        const root = /<(\w+)\s/.exec(xml.replace(/^<\?xml[^>]*>\s*/, ''))![1]!;
        expect(xsdErrors(xml, `${root}_V4.4.xsd`)).toBe('');
        expect(xmlsecErrors(xml)).toBe('');
      }
    },
  );

  it('when a ticket issued without a connection is sent two hours later as situación 3, then its clave says so and it ends aceptado', async () => {
    const issuedOffline = formatCostaRicaDateTime(new Date(Date.now() - 2 * 3_600_000));
    const { clave, data } = await submitAndWait('ticket', undefined, {
      fechaEmision: issuedOffline,
      situacion: '3',
    });
    expect(data.estado).toBe('aceptado');
    expect(clave[41]).toBe('3');
    const row = await ctx.db.query<{ xml: string }>('SELECT xml FROM documents WHERE clave = $1', [clave]);
    expect(row.rows[0]!.xml).toContain(`<FechaEmision>${issuedOffline}</FechaEmision>`);
  });

  it.each(['exportInvoice', 'foreignTicket'] as const)(
    'when a %s goes to a foreign receptor, then the documents list shows and finds that receptor, and POST /recepcion names none',
    async (kind) => {
      const receptor = (documentBody(kind, 0) as { receptor: { identificacion: { numero: string } } })
        .receptor.identificacion;
      const { clave, data } = await submitAndWait(kind);
      expect(data.estado).toBe('aceptado');
      const listed = await get(ctx, 'acme', `/api/documentos?receptor=${receptor.numero}`).expect(200);
      expect(listed.body.data).toContainEqual(
        expect.objectContaining({ clave, receptor: { tipo: '05', numero: receptor.numero } }),
      );
      // Its JSON schema takes national ids (numeroIdentificacion up to 12 characters): the XML names the
      // foreign receptor (REFERENCE §4.2).
      const { comprobantes } = (await admin('GET', '/sandbox/comprobantes')) as {
        comprobantes: { clave: string; receptor?: unknown }[];
      };
      const posted = comprobantes.find((c) => c.clave === clave);
      expect(posted).toBeDefined();
      expect(posted!.receptor).toBeUndefined();
    },
  );

  it('when the sandbox rejects the document, then it ends rechazado with its findings', async () => {
    await admin('POST', '/sandbox/veredicto', {
      outcome: 'reject',
      code: -99,
      text: 'Rechazo forzado de prueba',
    });
    const { clave, data } = await submitAndWait('invoice');
    expect(data).toMatchObject({ estado: 'rechazado', mensajeHacienda: { mensaje: 3 } });
    expect(data.mensajeHacienda.detalle.length).toBeGreaterThan(0);
    expect(JSON.stringify(data.mensajeHacienda.detalle)).toContain('Rechazo forzado de prueba');
    expect(await eventsOf(clave)).toEqual(['pendiente', 'enviado', 'rechazado']);
  });

  it('when submit and status answer 5xx and time out, and the IdP is down a while, then it still ends aceptado', async () => {
    ctx.hacienda.tokens.forget({ issuerId: 'acme/3101123456', ambiente: 2 });
    await admin('POST', '/sandbox/fallas', { target: 'idp', mode: 'status', count: 2, status: 503 });
    await admin('POST', '/sandbox/fallas', {
      target: 'recepcion-post',
      mode: 'status',
      count: 2,
      status: 503,
    });
    const first = submitAndWait('invoice');
    await new Promise((r) => setTimeout(r, 300));
    await admin('POST', '/sandbox/fallas', {
      target: 'recepcion-get',
      mode: 'timeout',
      count: 1,
      timeoutMs: 1_500,
    });
    const { clave, data } = await first;
    expect(data.estado).toBe('aceptado');
    expect(data.intentos).toBeGreaterThanOrEqual(3);
    expect(await eventsOf(clave)).toEqual(['pendiente', 'enviado', 'aceptado']);
    await admin('POST', '/sandbox/fallas', {
      target: 'recepcion-post',
      mode: 'timeout',
      count: 1,
      timeoutMs: 1_500,
    });
    expect((await submitAndWait('ticket')).data.estado).toBe('aceptado');
  });

  it('when the callback never arrives, then the status polling alone ends it aceptado', async () => {
    // Our callback URL points nowhere reachable (the test app does not listen): only polling can finish.
    const { data } = await submitAndWait('invoice');
    expect(data.estado).toBe('aceptado');
  });
});
