// The tenant's SMTP settings as an attack surface, with MAIL_ALLOW_PRIVATE_HOSTS off as in production: a
// host on a private or loopback address is refused when configured and, if such a row exists anyway (a name
// that later resolves inside), at the connection; the operator's SMTP_URL is not subject to it. Bad bodies
// are 400s naming the field (a password with `requiereTls: false` among them: credentials never go without
// TLS); one tenant's settings are invisible to another.
import { type RunningMailCatcher, startMailCatcher } from '@cr/mail-catcher';
import { withTenant } from '../src/db/with-tenant';
import { deleteMailSettings, saveMailSettings } from '../src/delivery/mail-settings-repository';
import { recordFinal } from '../src/hacienda/record-transitions';
import { getJob } from '@cr/jobs';
import { post } from './support/client';
import { insertTestDocument, mensajeHaciendaXml } from './support/documents';
import { createTenantLimiter } from '../src/tenancy/tenant-rate-limit';
import { type TestApp, startTestApp } from './support/test-app';
import { raiseAcceptedMail } from './support/mail-helpers';
import { mailSettingsRow } from './support/mail-settings-row';

let ctx: TestApp;
let catcher: RunningMailCatcher;

beforeAll(async () => {
  catcher = await startMailCatcher({ smtpPort: 0, webPort: 0 });
  ctx = await startTestApp({
    mail: { smtpUrl: catcher.smtpUrl, allowPrivateHosts: false, retryDelaysMs: [] },
    mailNewAddressLimiter: createTenantLimiter('e-mail resends to new addresses', {
      limit: 2,
      windowSeconds: 86_400,
    }),
  });
});
afterAll(async () => {
  await ctx.close();
  await catcher.stop();
});

const valid = { host: 'smtp.acme.cr', port: 587, remitente: 'facturas@acme.cr' };

describe('POST /api/configurar/correo: SSRF guard', () => {
  it.each(['127.0.0.1', 'localhost', '10.0.0.5', '169.254.169.254', '192.168.1.1'])(
    'when the host is %s, then 400 naming host and nothing is stored',
    async (host) => {
      const res = await post(ctx, 'acme', '/api/configurar/correo', { ...valid, host });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'bad_request',
        message: 'host: must not resolve to a private, loopback or reserved address',
      });
      const shown = await post(ctx, 'acme', '/api/consultar/correo', {});
      expect(shown.body.data.origen).toBe('plataforma');
    },
  );

  it('when a stored host resolves to a private address at sending time, then the attempt is refused before connecting and recorded', async () => {
    await withTenant(ctx.db, 'acme', (tx) =>
      saveMailSettings(tx, 'acme', mailSettingsRow({ port: catcher.catcher.port }), new Date()),
    );
    const before = catcher.catcher.messages.length;
    const { clave, documentId } = await raiseAcceptedMail(ctx, 'acme');
    expect(catcher.catcher.messages).toHaveLength(before);
    // A server refused by policy is configuration, not a failed delivery: the job ends done (the jobs'
    // failure count and its alert stay about deliveries that really failed); the e-mail says fallido.
    expect((await getJob(ctx.db, { key: `mail:${documentId}:aceptado` }))?.state).toBe('done');
    const data = (await post(ctx, 'acme', '/api/consultar/documento', { clave })).body.data;
    expect(data.correo.envios).toEqual([
      expect.objectContaining({
        estado: 'fallido',
        intentos: [
          expect.objectContaining({
            ok: false,
            codigo: null,
            respuesta: expect.stringContaining('resolves only to non-public addresses'),
          }),
        ],
      }),
    ]);
    expect((await post(ctx, 'acme', '/api/configurar/correo', { predeterminado: true })).status).toBe(200);
  });

  it("when the tenant has no server of its own, then the operator's SMTP_URL sends, loopback or not", async () => {
    const before = catcher.catcher.messages.length;
    const { clave } = await raiseAcceptedMail(ctx, 'acme');
    const messages = await catcher.catcher.waitFor(before + 1);
    expect(messages.at(-1)!.attachments.map((a) => a.filename)).toEqual([
      `${clave}.xml`,
      `${clave}_respuesta.xml`,
      `${clave}.pdf`,
    ]);
    const data = (await post(ctx, 'acme', '/api/consultar/documento', { clave })).body.data;
    expect(data.correo.envios[0]).toMatchObject({ estado: 'enviado', destinatarios: ['xavier@pixdea.com'] });
  });
});

describe('POST /api/reenviar/correo through the platform server: not a relay', () => {
  const resend = (tenant: string, clave: string, destinatarios?: string[]) =>
    post(ctx, tenant, '/api/reenviar/correo', { clave, ...(destinatarios ? { destinatarios } : {}) });

  it("when a tenant resends to addresses the document does not name, then its daily budget ends in 429, while the receptor's own address still goes", async () => {
    const doc = await insertTestDocument(ctx.db, 'relay', { estado: 'aceptado' });
    // The document's receptor (xavier@pixdea.com), in any letter case: never counted.
    for (const to of [undefined, ['XAVIER@pixdea.com'], ['xavier@pixdea.com']])
      expect((await resend('relay', doc.clave, to)).status).toBe(200);
    expect((await resend('relay', doc.clave, ['someone@elsewhere.example'])).status).toBe(200);
    expect((await resend('relay', doc.clave, ['xavier@pixdea.com', 'other@elsewhere.example'])).status).toBe(
      200,
    );
    const refused = await resend('relay', doc.clave, ['victim@elsewhere.example']);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(
      /^too many e-mail resends to addresses the document does not name, through the platform's server for this tenant; retry in \d+ s$/,
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3600);
    const stored = await ctx.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM mail_messages WHERE tenant_id = 'relay'",
    );
    expect(stored.rows[0]!.n).toBe(5);
    expect((await resend('relay', doc.clave)).status).toBe(200);
    // Another tenant's budget is its own.
    const other = await insertTestDocument(ctx.db, 'norelay', { estado: 'aceptado' });
    expect((await resend('norelay', other.clave, ['someone@elsewhere.example'])).status).toBe(200);
  });

  it('when the tenant sends through its own SMTP server, then addresses it picks are its own affair', async () => {
    await withTenant(ctx.db, 'ownserver', (tx) =>
      saveMailSettings(
        tx,
        'ownserver',
        mailSettingsRow({ host: 'smtp.ownserver.cr', from_address: 'facturas@ownserver.cr' }),
        new Date(),
      ),
    );
    try {
      const doc = await insertTestDocument(ctx.db, 'ownserver', { estado: 'aceptado' });
      for (let i = 0; i < 3; i += 1)
        expect((await resend('ownserver', doc.clave, [`someone${i}@elsewhere.example`])).status).toBe(200);
    } finally {
      // The file's tenancy test counts the rows of tenant_mail_settings.
      await withTenant(ctx.db, 'ownserver', (tx) => deleteMailSettings(tx, 'ownserver'));
    }
  });
});

describe('POST /api/configurar/correo: bad bodies and tenancy', () => {
  it.each([
    [{ ...valid, port: 0 }, 'port'],
    [{ ...valid, port: 22 }, 'port: 22 is not an SMTP port; use 25, 465, 587 or a port from 1024'],
    [{ ...valid, port: 143 }, 'port: 143 is not an SMTP port'],
    [{ ...valid, host: 'smtp acme' }, 'host'],
    [{ ...valid, remitente: 'facturas@acme.cr\r\nBcc: x@y.z' }, 'remitente'],
    [{ ...valid, password: 'x' }, 'usuario'],
    [
      { ...valid, usuario: 'u@acme.cr', password: 'x', requiereTls: false },
      'requiereTls: must not be false with a password: credentials are never sent without TLS',
    ],
    [{ ...valid, requiereTls: 'no' }, 'requiereTls'],
    [{ ...valid, nombreRemitente: 'A\r\nBcc: x@y.z' }, 'nombreRemitente'],
    [{ predeterminado: false }, ''],
  ])('when the body is %j, then 400 naming %s', async (body, field) => {
    const res = await post(ctx, 'acme', '/api/configurar/correo', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.message).toContain(field);
  });

  it("when a tenant configured its server, then another tenant still sees the platform's, and returning to it removes the row", async () => {
    const res = await post(ctx, 'acme', '/api/configurar/correo', {
      ...valid,
      host: '93.184.215.14',
      usuario: 'facturas@acme.cr',
      password: 'acme-smtp-secret',
    });
    expect(res.status).toBe(200);
    // STARTTLS required by default: the password never goes in clear.
    expect(res.body.data).toMatchObject({ origen: 'tenant', requiereTls: true, tienePassword: true });
    // With `secure` (TLS from the first byte) the flag is moot: accepted with a password, shown as true.
    const tls = await post(ctx, 'acme', '/api/configurar/correo', {
      ...valid,
      host: '93.184.215.14',
      port: 465,
      usuario: 'facturas@acme.cr',
      password: 'acme-smtp-secret',
      requiereTls: false,
    });
    expect(tls.status).toBe(200);
    expect(tls.body.data).toMatchObject({ secure: true, requiereTls: true, tienePassword: true });
    const other = await post(ctx, 'other', '/api/consultar/correo', {});
    expect(other.body).toEqual({
      status: 'success',
      data: {
        origen: 'plataforma',
        host: '127.0.0.1',
        port: catcher.catcher.port,
        secure: false,
        requiereTls: null,
        usuario: null,
        tienePassword: false,
        remitente: 'Facturación electrónica <facturacion@localhost>',
      },
    });
    expect(JSON.stringify(other.body)).not.toContain('93.184.215.14');
    expect(
      (await post(ctx, 'acme', '/api/configurar/correo', { predeterminado: true })).body.data.origen,
    ).toBe('plataforma');
    const rows = await ctx.db.query('SELECT tenant_id FROM tenant_mail_settings');
    expect(rows.rows).toEqual([]);
    expect(ctx.log.text).not.toContain('acme-smtp-secret');
  });
});

describe('which acceptances raise an e-mail', () => {
  it.each([
    ['1', true],
    ['4', true],
    ['5', false],
    ['6', false],
    ['7', false],
  ])(
    'when a document of tipoDoc %s is accepted, then an e-mail job is raised: %s',
    async (tipoDoc, raised) => {
      const doc = await insertTestDocument(ctx.db, 'acme', { estado: 'enviado', tipoDoc });
      const payload = { tenantId: 'acme', documentId: doc.id };
      const values = { estado: 'aceptado' as const, respuestaXml: mensajeHaciendaXml(doc.clave), mensaje: 1 };
      expect(await recordFinal(ctx.submission, payload, values, 'aceptado')).toBe(true);
      const job = await getJob(ctx.db, { key: `mail:${doc.id}:aceptado` });
      expect(job !== undefined).toBe(raised);
      if (job)
        expect(job).toMatchObject({
          queue: 'mail.deliver',
          payload: { documentId: doc.id, reason: 'aceptado' },
        });
    },
  );

  it('when a document is rejected, then no e-mail job', async () => {
    const doc = await insertTestDocument(ctx.db, 'acme', { estado: 'enviado' });
    const values = {
      estado: 'rechazado' as const,
      respuestaXml: mensajeHaciendaXml(doc.clave, 3),
      mensaje: 3,
    };
    await recordFinal(ctx.submission, { tenantId: 'acme', documentId: doc.id }, values, 'rechazado');
    expect(await getJob(ctx.db, { key: `mail:${doc.id}:aceptado` })).toBeUndefined();
    expect(await getJob(ctx.db, { key: `mail:${doc.id}:rechazado` })).toBeUndefined();
  });
});
