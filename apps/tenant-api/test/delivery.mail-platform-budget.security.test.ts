// The platform's SMTP server (SMTP_URL) sends for every tenant without a server of its own, and every one of
// them depends on its reputation. The attack: one tenant issues documents to any address it likes (each
// e-mail with up to ten copias) and spends that reputation for all. MAIL_PLATFORM_LIMIT gives each tenant a
// budget of attempts through it: past the budget the tenant's e-mail waits, pendiente, with no attempt made or
// recorded, and runs again when a slot frees up; another tenant's e-mail goes at once.
import { getJob } from '@cr/jobs';
import { type RunningMailCatcher, startMailCatcher } from '@cr/mail-catcher';
import { createTenantLimiter } from '../src/tenancy/tenant-rate-limit';
import { post } from './support/client';
import { startCountingSmtp } from './support/counting-smtp';
import { raiseAcceptedMail } from './support/mail-helpers';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(60_000);

const WINDOW_SECONDS = 3_600;

let ctx: TestApp;
let catcher: RunningMailCatcher;

beforeAll(async () => {
  catcher = await startMailCatcher({ smtpPort: 0, webPort: 0 });
  ctx = await startTestApp({
    mail: { smtpUrl: catcher.smtpUrl, retryDelaysMs: [60_000] },
    platformMailLimiter: createTenantLimiter('e-mails through the platform server', {
      limit: 2,
      windowSeconds: WINDOW_SECONDS,
    }),
  });
});
afterAll(async () => {
  await ctx.close();
  await catcher.stop();
});

async function envios(tenantId: string, clave: string) {
  return (await post(ctx, tenantId, '/api/consultar/documento', { clave })).body.data.correo.envios;
}

describe("a tenant's budget on the platform's SMTP server", () => {
  it('when a tenant has spent it, then its next e-mail waits pendiente without an attempt, and another tenant’s e-mail still goes', async () => {
    const before = catcher.catcher.messages.length;
    await raiseAcceptedMail(ctx, 'acme');
    await raiseAcceptedMail(ctx, 'acme');
    await catcher.catcher.waitFor(before + 2);

    const third = await raiseAcceptedMail(ctx, 'acme');
    expect(catcher.catcher.messages).toHaveLength(before + 2);
    const [envio] = await envios('acme', third.clave);
    expect(envio).toMatchObject({ estado: 'pendiente', intentos: [] });
    const job = await getJob(ctx.db, { key: third.key });
    expect(job).toMatchObject({
      state: 'pending',
      lastError: expect.stringContaining("budget of e-mails through the platform's SMTP server is spent"),
    });
    // It runs again when the oldest of the two slots leaves the window, not at the e-mail's retry schedule.
    // (Spread by up to a minute, so a tenant's deferred e-mails do not all wake for the same freed slot.)
    expect(job!.runAt.getTime()).toBeGreaterThan(Date.now() + (WINDOW_SECONDS - 60) * 1000);
    expect(job!.runAt.getTime()).toBeLessThan(Date.now() + (WINDOW_SECONDS + 61) * 1000);

    // Another tenant's budget is its own.
    const other = await raiseAcceptedMail(ctx, 'other');
    await catcher.catcher.waitFor(before + 3);
    expect((await envios('other', other.clave))[0]).toMatchObject({ estado: 'enviado' });
  });

  it('when a tenant sends through its own SMTP server, then the budget does not count it', async () => {
    const own = await startCountingSmtp();
    try {
      const configured = await post(ctx, 'own', '/api/configurar/correo', {
        host: '127.0.0.1',
        port: own.port,
        requiereTls: false,
        remitente: 'facturas@own.cr',
      });
      expect(configured.status).toBe(200);
      for (let i = 0; i < 3; i++) await raiseAcceptedMail(ctx, 'own');
      expect(own.received).toHaveLength(3);
    } finally {
      await own.stop();
    }
  });
});
