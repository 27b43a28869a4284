// MAIL_RESEND_NEW_ADDRESS_LIMIT was charged only when a resend was asked for and the tenant then had no SMTP
// server of its own; the job picks the server when it runs. The attack: configure a server of one's own that
// answers 4xx, resend to any addresses (not counted: the tenant's own server would send), return to the
// platform's server (`predeterminado`) and let every retry go out through it. Now the job charges such an
// e-mail when the platform sends it, once; with the budget spent it is given up, as the resend would have
// been refused. An e-mail charged when it was asked for is not charged again.
import { post } from './support/client';
import { type CountingSmtp, startCountingSmtp } from './support/counting-smtp';
import { insertTestDocument } from './support/documents';
import { createTenantLimiter } from '../src/tenancy/tenant-rate-limit';
import { type TestApp, startTestApp } from './support/test-app';
import { drain } from './support/webhook-helpers';

jest.setTimeout(60_000);

let ctx: TestApp;
/** The platform's server (SMTP_URL). */
let platform: CountingSmtp;
/** Moves the app's clock (the jobs' due times) past an e-mail's retry delay. */
let aheadMs = 0;

beforeAll(async () => {
  platform = await startCountingSmtp();
  ctx = await startTestApp({
    now: () => new Date(Date.now() + aheadMs),
    mail: { smtpUrl: `smtp://127.0.0.1:${platform.port}`, retryDelaysMs: [60_000, 60_000] },
    mailNewAddressLimiter: createTenantLimiter('e-mail resends to new addresses', {
      limit: 2,
      windowSeconds: 86_400,
    }),
  });
});
afterAll(async () => {
  await ctx.close();
  await platform.stop();
});

const resend = (tenant: string, clave: string, destinatarios?: string[]) =>
  post(ctx, tenant, '/api/reenviar/correo', { clave, ...(destinatarios ? { destinatarios } : {}) });

async function envios(tenant: string, clave: string) {
  return (await post(ctx, tenant, '/api/consultar/documento', { clave })).body.data.correo.envios as Array<{
    estado: string;
    intentos: Array<{ ok: boolean; respuesta: string | null }>;
  }>;
}

describe("resends to new addresses, asked of the tenant's own server and sent by the platform's", () => {
  it("when the tenant returns to the platform's server while they wait for a retry, then the platform sends only as many as the budget holds and gives up the rest", async () => {
    // The tenant's own server answers every MAIL FROM with a temporary failure: each e-mail waits for a retry.
    const own = await startCountingSmtp({
      onMailFrom(_address, _session, cb) {
        cb(Object.assign(new Error('try again later'), { responseCode: 451 }));
      },
    });
    const doc = await insertTestDocument(ctx.db, 'switcher', { estado: 'aceptado' });
    try {
      const configured = await post(ctx, 'switcher', '/api/configurar/correo', {
        host: '127.0.0.1',
        port: own.port,
        requiereTls: false,
        remitente: 'facturas@switcher.cr',
      });
      expect(configured.status).toBe(200);
      // Not counted when asked for: the tenant's own server was to send them.
      for (let i = 0; i < 3; i += 1)
        expect((await resend('switcher', doc.clave, [`victim${i}@elsewhere.example`])).status).toBe(200);
      await drain(ctx);
      expect(own.received).toHaveLength(0);
      expect((await envios('switcher', doc.clave)).map((e) => e.estado)).toEqual([
        'pendiente',
        'pendiente',
        'pendiente',
      ]);

      const back = await post(ctx, 'switcher', '/api/configurar/correo', { predeterminado: true });
      expect(back.status).toBe(200);
      aheadMs += 10 * 60_000;
      await drain(ctx);
    } finally {
      await own.stop();
    }

    // The platform's server got two (the budget), not three.
    expect(platform.received).toHaveLength(2);
    const after = await envios('switcher', doc.clave);
    expect(after.map((e) => e.estado).sort()).toEqual(['enviado', 'enviado', 'fallido']);
    const givenUp = after.find((e) => e.estado === 'fallido')!;
    expect(givenUp.intentos.at(-1)).toMatchObject({
      ok: false,
      respuesta: expect.stringContaining('MAIL_RESEND_NEW_ADDRESS_LIMIT'),
    });
    // The two it sent took the budget the resends would have: the next one is refused when asked for.
    const late = await resend('switcher', doc.clave, ['late@elsewhere.example']);
    expect(late.status).toBe(429);
    // The document's own receptor is never counted.
    expect((await resend('switcher', doc.clave)).status).toBe(200);
    await drain(ctx);
    expect(platform.received).toHaveLength(3);
  });

  it('when a resend was charged as it was asked for, then the job does not charge it again', async () => {
    const before = platform.received.length;
    const doc = await insertTestDocument(ctx.db, 'plain', { estado: 'aceptado' });
    for (const to of ['a@elsewhere.example', 'b@elsewhere.example'])
      expect((await resend('plain', doc.clave, [to])).status).toBe(200);
    expect((await resend('plain', doc.clave, ['c@elsewhere.example'])).status).toBe(429);
    await drain(ctx);
    expect(platform.received).toHaveLength(before + 2);
    expect((await envios('plain', doc.clave)).map((e) => e.estado)).toEqual(['enviado', 'enviado']);
  });
});
