// The receptor's e-mail end to end: the real hacienda-sandbox accepts the documents, the jobs worker runs,
// and real SMTP servers in this process receive (the @cr/mail-catcher, and an smtp-server the test makes
// answer 4xx). Checks: one message with the three attachments byte-equal to the downloads; an outage
// (nothing listening, then 451) delays it without losing it, every attempt visible in consultar; a resend
// makes a second one; a ticket without e-mail sends none; the tenant's branding is in the e-mail's PDF. (A
// tenant's SMTP password goes only over TLS, which this process cannot verify against a test certificate:
// delivery.mail-tls.security.test.ts covers it, and smtp-connections.test.ts AUTH over a trusted STARTTLS.)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningMailCatcher, startMailCatcher } from '@cr/mail-catcher';
import { getJob } from '@cr/jobs';
import { type AppProcess, REPO_ROOT, requireResource } from '@cr/testkit';
import { SMTPServer } from 'smtp-server';
import { pdfText, popplerAvailable } from '../../../packages/pdf/test/pdf-tools';
import { getBytes, post } from './support/client';
import { documentBody } from './support/document-mother';
import { haciendaSettingsFor, startFlowSandbox, sandboxAdmin } from './support/hacienda-sandbox';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(180_000);

const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'S3cr3t-Hacienda!';
const PIN = '4821';

const sandboxPresent = existsSync(join(REPO_ROOT, 'apps', 'hacienda-sandbox', 'src', 'main.ts'));
const run = requireResource('apps/hacienda-sandbox (on main)', sandboxPresent);
const describeIf = run ? describe : describe.skip;

let sandbox: AppProcess;
let ctx: TestApp;
let dataDir: string;
let catcher: RunningMailCatcher;
let n = 1;

const tools = popplerAvailable();
const squash = (s: string) => s.replace(/\s+/g, ' ');

const admin = (path: string, body: unknown) => sandboxAdmin(sandbox.url, path, body);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Tenant `other` sends through its own server on `port`: a plain one (no STARTTLS), so no credentials. */
function useOwnPlainServer(port: number, extra: Record<string, unknown> = {}) {
  return post(ctx, 'other', '/api/configurar/correo', {
    host: '127.0.0.1',
    port,
    secure: false,
    requiereTls: false,
    remitente: 'facturas@other.cr',
    ...extra,
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function consultar(clave: string, tenant = 'acme') {
  const res = await post(ctx, tenant, '/api/consultar/documento', { clave });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function submitAccepted(body: Record<string, unknown>, tenant = 'acme'): Promise<string> {
  const res = await post(ctx, tenant, '/api/enviar/items', body);
  expect(res.status).toBe(200);
  const clave: string = res.body.clave;
  await until(`${clave} accepted`, async () => {
    const data = await consultar(clave, tenant);
    expect(['pendiente', 'enviado', 'aceptado']).toContain(data.estado);
    return data.estado === 'aceptado' ? true : undefined;
  });
  return clave;
}

function download(clave: string, what: 'xml' | 'respuesta' | 'pdf', tenant = 'acme') {
  return getBytes(ctx, tenant, `/api/descargar/${clave}/${what}`);
}

/** Waits until the document's acceptance e-mail job has finished (sent, given up, or nothing to send). */
async function mailJobDone(clave: string): Promise<void> {
  const r = await ctx.db.query<{ id: string }>('SELECT id FROM documents WHERE clave = $1', [clave]);
  const id = r.rows[0]!.id;
  await until('the e-mail job', async () => {
    const job = await getJob(ctx.db, { key: `mail:${id}:aceptado` });
    return job && job.state !== 'pending' && job.state !== 'running' ? job : undefined;
  });
}

describeIf('e-mail to the receptor, through a real SMTP server', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mail-sandbox-'));
    sandbox = await startFlowSandbox(dataDir, 120_000);
    catcher = await startMailCatcher({ smtpPort: 0, webPort: 0 });
    ctx = await startTestApp({
      hacienda: haciendaSettingsFor(sandbox.url),
      haciendaTimeoutMs: 1_000,
      haciendaCaBundle: join(dataDir, 'keys', 'ca-cert.pem'),
      checkExonerations: false,
      startWorker: true,
      mail: { smtpUrl: catcher.smtpUrl, retryDelaysMs: [300, 300, 300, 300, 300, 300, 300, 300, 300, 300] },
    });
    await admin('/sandbox/usuarios', { username: USER, password: PASSWORD });
    const cert = (await admin('/sandbox/certificados', {
      identificacion: '3101123456',
      tipoIdentificacion: '02',
      nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
      pin: PIN,
    })) as { p12: string };
    for (const tenant of ['acme', 'other']) {
      const registered = await post(
        ctx,
        tenant,
        '/api/enviar/emisor',
        issuerBody({ usuarioHacienda: USER, pinCertificado: PIN, certificadoHacienda: cert.p12 }),
      );
      expect(registered.status).toBe(200);
    }
  });
  afterAll(async () => {
    await ctx?.close();
    await catcher?.stop();
    await sandbox?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    catcher.catcher.messages.length = 0;
  });

  it('when an invoice is accepted, then exactly one e-mail with the XML, the answer and the PDF, byte-equal to the downloads', async () => {
    const clave = await submitAccepted({
      ...documentBody('invoice', n++),
      copias: ['contabilidad@pixdea.com'],
    });
    const [message] = await catcher.catcher.waitFor(1);
    await mailJobDone(clave);
    expect(catcher.catcher.messages).toHaveLength(1);

    expect(message!.envelope.to).toEqual(['xavier@pixdea.com', 'contabilidad@pixdea.com']);
    expect(message!.from).toBe('"Facturación electrónica" <facturacion@localhost>');
    // The receptor's answer goes to the issuer's own address in the signed XML, not the platform's.
    const issuerMail = /<Emisor>[\s\S]*?<CorreoElectronico>([^<]+)<\/CorreoElectronico>/.exec(
      (await download(clave, 'xml')).body.toString('utf8'),
    )![1]!;
    expect(message!.raw.toString('latin1')).toContain(`\r\nReply-To: ${issuerMail}\r\n`);
    expect(message!.text).toContain(`su respuesta llega a `);
    expect(message!.text).toContain(`(${issuerMail})`);
    expect(message!.subject).toMatch(/^Factura electrónica \d{20} de /);
    expect(message!.text).toContain(`Clave: ${clave}`);
    expect(message!.text).toContain('El Ministerio de Hacienda aceptó el comprobante.');
    expect(message!.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      [`${clave}.xml`, 'application/xml'],
      [`${clave}_respuesta.xml`, 'application/xml'],
      [`${clave}.pdf`, 'application/pdf'],
    ]);
    const [xml, respuesta, pdf] = await Promise.all([
      download(clave, 'xml'),
      download(clave, 'respuesta'),
      download(clave, 'pdf'),
    ]);
    expect(message!.attachments[0]!.content.equals(xml.body as Buffer)).toBe(true);
    expect(message!.attachments[1]!.content.equals(respuesta.body as Buffer)).toBe(true);
    expect(message!.attachments[2]!.content.equals(pdf.body as Buffer)).toBe(true);

    const data = await consultar(clave);
    expect(data.correo.envios).toEqual([
      {
        envioId: expect.stringMatching(/^env_[0-9a-f]{16}$/),
        motivo: 'aceptado',
        destinatarios: ['xavier@pixdea.com', 'contabilidad@pixdea.com'],
        estado: 'enviado',
        intentos: [
          {
            intento: 1,
            ok: true,
            codigo: 250,
            respuesta: expect.stringMatching(/^250 /),
            fecha: expect.any(String),
          },
        ],
        fecha: expect.any(String),
      },
    ]);
  });

  it('when the accepted document is resent, then a second e-mail, to the given destinatarios or by default to the same ones', async () => {
    const clave = await submitAccepted(documentBody('invoice', n++));
    await catcher.catcher.waitFor(1);
    await mailJobDone(clave);

    const again = await post(ctx, 'acme', '/api/reenviar/correo', { clave });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      status: 'success',
      message: `the e-mail of ${clave} is queued`,
      data: { envioId: expect.stringMatching(/^env_/) },
    });
    const messages = await catcher.catcher.waitFor(2);
    expect(messages[1]!.envelope.to).toEqual(['xavier@pixdea.com']);
    expect(messages[1]!.attachments.map((a) => a.content)).toEqual(
      messages[0]!.attachments.map((a) => a.content),
    );

    const other = await post(ctx, 'acme', '/api/reenviar/correo', {
      clave,
      destinatarios: ['otra@pixdea.com'],
    });
    expect(other.status).toBe(200);
    expect((await catcher.catcher.waitFor(3))[2]!.envelope.to).toEqual(['otra@pixdea.com']);

    // The server has the message a moment before the job records its attempt.
    const envios = await until('three e-mails recorded as sent', async () => {
      const list = (await consultar(clave)).correo.envios;
      return list.every((e: { estado: string }) => e.estado !== 'pendiente') ? list : undefined;
    });
    expect(envios.map((e: { motivo: string; estado: string }) => [e.motivo, e.estado])).toEqual([
      ['aceptado', 'enviado'],
      ['reenvio', 'enviado'],
      ['reenvio', 'enviado'],
    ]);
    expect(envios[1].envioId).toBe(again.body.data.envioId);
  });

  it('when a purchase invoice is accepted, then the e-mail goes to the supplier (its Emisor), not to the issuer itself', async () => {
    const clave = await submitAccepted(documentBody('purchaseInvoice', n++));
    const [message] = await catcher.catcher.waitFor(1);
    await mailJobDone(clave);
    expect(message!.envelope.to).toEqual(['juan.perez@example.com']);
    // The buyer (the issuer, the XML's Receptor) sends it; the supplier (its Emisor) is the one addressed.
    const signed = (await download(clave, 'xml')).body.toString('utf8');
    const issuer = /<Receptor>\s*<Nombre>([^<]+)<\/Nombre>/.exec(signed)![1]!;
    expect(message!.subject).toMatch(/^Factura electrónica de compra \d{20} de (.+)$/);
    expect(message!.subject.endsWith(` de ${issuer}`)).toBe(true);
    expect(message!.text).toMatch(/^Estimado\(a\) Juan Perez Mora:\n/);
    expect(message!.text).toContain(`${issuer} le envía la factura electrónica de compra`);
    // The buyer issued it: the supplier's answer goes to the buyer's address (the XML's Receptor).
    const buyerMail = /<Receptor>[\s\S]*?<CorreoElectronico>([^<]+)<\/CorreoElectronico>/.exec(signed)?.[1];
    expect(buyerMail).toBeDefined();
    expect(message!.raw.toString('latin1')).toContain(`\r\nReply-To: ${buyerMail}\r\n`);
  });

  it('when a ticket has no receptor, then no e-mail is sent nor recorded, and a resend is refused', async () => {
    const clave = await submitAccepted(documentBody('ticket', n++, { copias: ['caja@acme.cr'] }));
    await mailJobDone(clave);
    await new Promise((r) => setTimeout(r, 300));
    expect(catcher.catcher.messages).toHaveLength(0);
    expect((await consultar(clave)).correo).toEqual({ envios: [], total: 0 });
    const res = await post(ctx, 'acme', '/api/reenviar/correo', { clave });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      error: 'conflict',
      message: expect.stringContaining('no correoElectronico'),
    });
  });

  it('when the resend names another tenant’s or an unknown clave, then 404', async () => {
    const foreign = await submitAccepted(documentBody('invoice', n++), 'other');
    await mailJobDone(foreign);
    await catcher.catcher.waitFor(1);
    for (const clave of [foreign, '5'.repeat(50)]) {
      const res = await post(ctx, 'acme', '/api/reenviar/correo', { clave });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', message: `clave: document ${clave} not found` });
    }
  });

  it("when the tenant's SMTP server is down, then answers 451, the e-mail waits and arrives once it accepts; every attempt is in consultar", async () => {
    const port = await freePort();
    // A name ending in a backslash: pasted into a quoted string it escaped the closing quote.
    const configured = await useOwnPlainServer(port, { nombreRemitente: 'Other Facturación \\' });
    expect(configured.status).toBe(200);
    expect(configured.body.data).toEqual({
      origen: 'tenant',
      host: '127.0.0.1',
      port,
      secure: false,
      requiereTls: false,
      usuario: null,
      tienePassword: false,
      remitente: 'facturas@other.cr',
    });

    // Phase 1: nothing listens on the port.
    const clave = await submitAccepted(documentBody('invoice', n++), 'other');
    await until('two refused attempts', async () => {
      const [envio] = (await consultar(clave, 'other')).correo.envios;
      return envio?.intentos.length >= 2 ? envio : undefined;
    });

    // Phase 2: a server that answers 451 to the message, twice.
    const received: Buffer[] = [];
    const senders: string[] = [];
    let refusals = 2;
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      onData(stream, session, cb) {
        if (session.envelope.mailFrom) senders.push(session.envelope.mailFrom.address);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (refusals > 0) {
            refusals -= 1;
            const err = new Error('4.3.2 mailbox busy, try again later') as Error & { responseCode: number };
            err.responseCode = 451;
            return cb(err);
          }
          received.push(Buffer.concat(chunks));
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      await until('the e-mail accepted', async () => (received.length > 0 ? true : undefined));
      await mailJobDone(clave);
      await new Promise((r) => setTimeout(r, 300));
      expect(received).toHaveLength(1);
      expect(received[0]!.toString('latin1')).toContain(`filename=${clave}.pdf`);
      expect(senders.at(-1)).toBe('facturas@other.cr');
      expect(received[0]!.toString('latin1')).toMatch(/^From: .* <facturas@other\.cr>\r$/m);

      const [envio] = (await consultar(clave, 'other')).correo.envios;
      expect(envio.estado).toBe('enviado');
      const intentos = envio.intentos as Array<{
        intento: number;
        ok: boolean;
        codigo: number | null;
        respuesta: string;
      }>;
      expect(intentos.map((i) => i.intento)).toEqual(intentos.map((_, k) => k + 1));
      const refused = intentos.filter((i) => !i.ok && i.codigo === null);
      const busy = intentos.filter((i) => !i.ok && i.codigo === 451);
      expect(refused.length).toBeGreaterThanOrEqual(2);
      expect(refused[0]!.respuesta).toMatch(/ECONNREFUSED|ECONNECTION/);
      expect(busy).toHaveLength(2);
      expect(busy[0]!.respuesta).toContain('451');
      expect(intentos.at(-1)).toMatchObject({ ok: true, codigo: 250 });
      // Nothing of this document went through the platform's server.
      const viaPlatform = catcher.catcher.messages.filter((m) =>
        m.attachments.some((a) => a.filename === `${clave}.pdf`),
      );
      expect(viaPlatform).toHaveLength(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }

    const shown = await post(ctx, 'other', '/api/consultar/correo', {});
    expect(shown.body.data).toMatchObject({ origen: 'tenant', requiereTls: false, tienePassword: false });
  });

  it("when the server refuses the receptor's address but takes the copia's, then the e-mail stays pendiente and the next attempt goes to the receptor only", async () => {
    const port = await freePort();
    expect((await useOwnPlainServer(port)).status).toBe(200);
    // Greylisting, as many receiving servers do: the first RCPT of an unknown sender is told to come back.
    let greylisted = 1;
    const received: string[][] = [];
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      onRcptTo(address, _session, cb) {
        if (address.address === 'xavier@pixdea.com' && greylisted > 0) {
          greylisted -= 1;
          const err = new Error('4.7.1 greylisted, try again later') as Error & { responseCode: number };
          err.responseCode = 450;
          return cb(err);
        }
        cb();
      },
      onData(stream, session, cb) {
        stream.resume();
        stream.on('end', () => {
          received.push(session.envelope.rcptTo.map((r) => r.address));
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const clave = await submitAccepted(
        documentBody('invoice', n++, { copias: ['archivo@other.cr'] }),
        'other',
      );
      await mailJobDone(clave);
      await new Promise((r) => setTimeout(r, 300));
      // Each address has the e-mail once: the copia's from the first attempt, the receptor's from the second.
      expect(received).toEqual([['archivo@other.cr'], ['xavier@pixdea.com']]);
      const [envio] = (await consultar(clave, 'other')).correo.envios;
      expect(envio).toMatchObject({
        estado: 'enviado',
        destinatarios: ['xavier@pixdea.com', 'archivo@other.cr'],
      });
      expect(envio.intentos).toEqual([
        expect.objectContaining({
          intento: 1,
          ok: false,
          codigo: 450,
          respuesta: expect.stringMatching(
            /^refused for xavier@pixdea\.com: 450 .*greylisted.*; taken for archivo@other\.cr$/,
          ),
        }),
        expect.objectContaining({ intento: 2, ok: true, codigo: 250 }),
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("when the tenant has a branding, then the e-mail's PDF carries its footer, as the download does", async () => {
    const footer = 'Gracias por su compra en ACME';
    const branded = await post(ctx, 'acme', '/api/configurar/marca', { pieDePagina: footer });
    expect(branded.status).toBe(200);
    const clave = await submitAccepted(documentBody('invoice', n++));
    const [message] = await catcher.catcher.waitFor(1);
    await mailJobDone(clave);
    const pdf = message!.attachments.find((a) => a.filename === `${clave}.pdf`)!.content;
    expect(pdf.equals((await download(clave, 'pdf')).body as Buffer)).toBe(true);
    if (!tools) return;
    expect(squash(pdfText(pdf))).toContain(footer);
  });
});
