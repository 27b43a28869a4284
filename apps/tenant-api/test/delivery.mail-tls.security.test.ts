// STARTTLS before a tenant's SMTP credentials and e-mails (docs/security.md, "SMTP: TLS before credentials"):
// a real SMTP server in this process that does not offer STARTTLS and takes AUTH in clear, as a server without
// TLS does, and as any server looks once an attacker on the path has struck STARTTLS from its EHLO reply. With
// the default settings it gets no AUTH and no message; the attempt records why and waits for its retry, and
// the password is never shown. `requiereTls: false` (a server without TLS) is accepted only without a
// password, and then that server gets the e-mail. Migration 0095 sets the flag of the rows stored before it.
import { type TestDatabase, createTestDatabase, migrate } from '@cr/service-kit';
import { getJob } from '@cr/jobs';
import { tenantApiMigrations, withTenant } from '../src/db/with-tenant';
import { saveMailSettings, sealMailPassword } from '../src/delivery/mail-settings-repository';
import { post } from './support/client';
import { type CountingSmtp, startCountingSmtp } from './support/counting-smtp';
import { raiseAcceptedMail } from './support/mail-helpers';
import { mailSettingsRow } from './support/mail-settings-row';
import { type TestApp, startTestApp } from './support/test-app';

const SMTP_USER = 'facturas@acme.cr';
const SMTP_PASSWORD = 'smtp-Pa55word-never-in-clear';

let ctx: TestApp;
/** A server without STARTTLS that takes AUTH in clear (allowInsecureAuth) and mail without it. */
let plain: CountingSmtp;

beforeAll(async () => {
  plain = await startCountingSmtp();
  // A retry far away: each test looks at the first attempt only.
  ctx = await startTestApp({ mail: { retryDelaysMs: [60_000] } });
});
afterAll(async () => {
  await ctx.close();
  await plain.stop();
});
beforeEach(() => {
  plain.logins = 0;
  plain.mailFrom = 0;
  plain.received.length = 0;
});

const server = () => ({ host: '127.0.0.1', port: plain.port, secure: false });

async function firstEnvio(tenantId: string, clave: string) {
  const data = (await post(ctx, tenantId, '/api/consultar/documento', { clave })).body.data;
  expect(data.correo.envios).toHaveLength(1);
  return data.correo.envios[0];
}

const STARTTLS_REFUSED =
  /^ETLS: the server did not accept STARTTLS \(5\d\d .+\); TLS is required before AUTH and the message, so nothing was sent$/;

describe("a tenant's SMTP server that does not offer STARTTLS", () => {
  it('when the settings are the default (with a password), then it gets no AUTH and no message, the attempt records why and waits for its retry, and the password is never shown', async () => {
    const configured = await post(ctx, 'acme', '/api/configurar/correo', {
      ...server(),
      usuario: SMTP_USER,
      password: SMTP_PASSWORD,
      remitente: SMTP_USER,
    });
    expect(configured.status).toBe(200);
    expect(configured.body.data).toEqual({
      origen: 'tenant',
      host: '127.0.0.1',
      port: plain.port,
      secure: false,
      requiereTls: true,
      usuario: SMTP_USER,
      tienePassword: true,
      remitente: SMTP_USER,
    });

    const { clave, key } = await raiseAcceptedMail(ctx, 'acme');
    expect(plain.logins).toBe(0);
    expect(plain.mailFrom).toBe(0);
    expect(plain.received).toHaveLength(0);
    const envio = await firstEnvio('acme', clave);
    expect(envio).toMatchObject({
      estado: 'pendiente',
      intentos: [
        {
          intento: 1,
          ok: false,
          codigo: expect.any(Number),
          respuesta: expect.stringMatching(STARTTLS_REFUSED),
        },
      ],
    });
    // A failed attempt like any other: retried on the e-mail's schedule, not given up.
    expect(await getJob(ctx.db, { key })).toMatchObject({
      state: 'pending',
      lastError: expect.stringMatching(STARTTLS_REFUSED),
    });

    const shown = await post(ctx, 'acme', '/api/consultar/correo', {});
    expect(shown.body.data).toMatchObject({ requiereTls: true, tienePassword: true });
    const raw = await ctx.db.query<Record<string, unknown>>(
      "SELECT * FROM tenant_mail_settings WHERE tenant_id = 'acme'",
    );
    expect(raw.rows[0]).toMatchObject({ require_tls: true, password_sealed: expect.stringMatching(/^v1\./) });
    const authPlain = Buffer.from(`\0${SMTP_USER}\0${SMTP_PASSWORD}`).toString('base64');
    for (const text of [
      JSON.stringify(configured.body),
      JSON.stringify(shown.body),
      JSON.stringify(envio),
      JSON.stringify(raw.rows),
      ctx.log.text,
    ]) {
      expect(text).not.toContain(SMTP_PASSWORD);
      expect(text).not.toContain(Buffer.from(SMTP_PASSWORD).toString('base64'));
      expect(text).not.toContain(authPlain);
    }
  });

  it('when a stored row has a password but says TLS is not required (written by hand), then TLS is still required: no AUTH, no message', async () => {
    await withTenant(ctx.db, 'handmade', (tx) =>
      saveMailSettings(
        tx,
        'handmade',
        mailSettingsRow({
          port: plain.port,
          require_tls: false,
          username: SMTP_USER,
          password_sealed: sealMailPassword(ctx.secrets, 'handmade', SMTP_PASSWORD),
          secrets_key_id: ctx.secrets.currentKeyId,
          from_address: SMTP_USER,
        }),
        new Date(),
      ),
    );
    const { clave } = await raiseAcceptedMail(ctx, 'handmade');
    expect(plain.logins).toBe(0);
    expect(plain.received).toHaveLength(0);
    const envio = await firstEnvio('handmade', clave);
    expect(envio.intentos[0].respuesta).toMatch(STARTTLS_REFUSED);
  });

  it('when the tenant says its server has no TLS (requiereTls: false, no password), then that server gets the e-mail; the same with a password is a 400 and the settings stay', async () => {
    const configured = await post(ctx, 'plain', '/api/configurar/correo', {
      ...server(),
      requiereTls: false,
      remitente: 'facturas@plain.cr',
    });
    expect(configured.status).toBe(200);
    expect(configured.body.data).toMatchObject({ requiereTls: false, usuario: null, tienePassword: false });

    const refused = await post(ctx, 'plain', '/api/configurar/correo', {
      ...server(),
      requiereTls: false,
      usuario: SMTP_USER,
      password: SMTP_PASSWORD,
      remitente: 'facturas@plain.cr',
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'bad_request',
      message: 'requiereTls: must not be false with a password: credentials are never sent without TLS',
    });
    expect(JSON.stringify(refused.body)).not.toContain(SMTP_PASSWORD);
    const shown = await post(ctx, 'plain', '/api/consultar/correo', {});
    expect(shown.body.data).toMatchObject({ requiereTls: false, usuario: null, tienePassword: false });

    const { clave } = await raiseAcceptedMail(ctx, 'plain');
    expect(plain.received).toEqual([expect.objectContaining({ secure: false, user: undefined })]);
    expect(plain.logins).toBe(0);
    expect(await firstEnvio('plain', clave)).toMatchObject({
      estado: 'enviado',
      intentos: [{ intento: 1, ok: true, codigo: 250 }],
    });
  });
});

describe('migration 0095 (require_tls) on the rows stored before it', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('when a row has a password, then it requires TLS; without one it keeps sending as before, and with `secure` it says TLS', async () => {
    const all = tenantApiMigrations();
    await migrate(
      db,
      all.filter((m) => m.id !== '0095_mail_require_tls'),
    );
    await db.query(
      `INSERT INTO tenant_mail_settings
         (tenant_id, host, port, secure, username, password_sealed, secrets_key_id, from_address)
       VALUES ('with-password', 'smtp.a.cr', 587, false, 'u@a.cr', 'v1.k1.sealed', 'k1', 'f@a.cr'),
              ('without-password', 'smtp.b.cr', 25, false, NULL, NULL, NULL, 'f@b.cr'),
              ('user-only', 'smtp.c.cr', 587, false, 'u@c.cr', NULL, NULL, 'f@c.cr'),
              ('secure', 'smtp.d.cr', 465, true, NULL, NULL, NULL, 'f@d.cr')`,
    );
    expect(await migrate(db, all)).toEqual(['0095_mail_require_tls']);
    const rows = await db.query<{ tenant_id: string; require_tls: boolean }>(
      'SELECT tenant_id, require_tls FROM tenant_mail_settings ORDER BY tenant_id',
    );
    expect(rows.rows).toEqual([
      { tenant_id: 'secure', require_tls: true },
      { tenant_id: 'user-only', require_tls: false },
      { tenant_id: 'with-password', require_tls: true },
      { tenant_id: 'without-password', require_tls: false },
    ]);
    // A row written afterwards without the column gets the default: required.
    await db.query(
      `INSERT INTO tenant_mail_settings (tenant_id, host, port, secure, from_address)
       VALUES ('later', 'smtp.e.cr', 587, false, 'f@e.cr')`,
    );
    const later = await db.query<{ require_tls: boolean }>(
      "SELECT require_tls FROM tenant_mail_settings WHERE tenant_id = 'later'",
    );
    expect(later.rows).toEqual([{ require_tls: true }]);
  });
});
