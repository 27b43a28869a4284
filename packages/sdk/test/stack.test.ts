// The SDK against the real services in this process (auth-server, tenant-api, hacienda-sandbox through
// @cr/stack): login → register the issuer → send each document kind → the verdict by polling and by a
// verified webhook → downloads; the errors a client meets; and answers lost on the way back, which the SDK
// sends again only where the service would not do the work twice.
import {
  DEMO_EMISOR,
  type Stack,
  creditNote as creditNoteJson,
  debitNote as debitNoteJson,
  exportInvoice as exportInvoiceJson,
  invoice as invoiceJson,
  paymentReceipt as paymentReceiptJson,
  purchaseInvoice as purchaseInvoiceJson,
  startStack,
  ticket as ticketJson,
} from '@cr/stack';
import {
  AuthenticationError,
  BadRequestError,
  type CrEinvoiceClient,
  type FetchLike,
  NotFoundError,
  ServerError,
  TokenExpiredError,
  type DocumentRequest,
  createClient,
  verifyWebhook,
} from '../src';
import { localhostFetch } from '../src/localhost';
import { type WebhookReceiver, startWebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(180_000);

const invoice = (n: number) => invoiceJson(n) as DocumentRequest;
const creditNote = (n: number, clave: string) => creditNoteJson(n, clave) as DocumentRequest;
const ticket = (n: number) => ticketJson(n) as DocumentRequest;

const PASSWORD = 'acme-password-123';
let stack: Stack;
let receiver: WebhookReceiver;
let cr: CrEinvoiceClient;
let secret: string;

beforeAll(async () => {
  stack = await startStack();
  receiver = await startWebhookReceiver();
  await stack.createTenant('acme', PASSWORD);
  cr = createClient({
    authUrl: stack.authUrl,
    tenantUrl: stack.tenantUrl('acme'),
    credentials: { base: 'acme', password: PASSWORD },
    fetch: localhostFetch(),
  });
}, 300_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

describe('SDK against the live stack', () => {
  it('when it logs in, then it holds an RS256 token of the tenant that expires in 8 h', async () => {
    const token = await cr.auth.login();
    const claims = JSON.parse(Buffer.from(token.token.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims.base).toBe('acme');
    expect(token.exp - Math.floor(Date.now() / 1000)).toBeGreaterThan(28_700);
  });

  it('when the issuer is registered, then it can be read back without its secrets', async () => {
    const registered = await cr.emisores.register(stack.demoEmisor() as never);
    expect(registered.status).toBe('success');
    const emisor = await cr.emisores.get(Number(DEMO_EMISOR));
    expect(JSON.stringify(emisor)).toContain(DEMO_EMISOR);
    expect(JSON.stringify(emisor)).not.toContain(stack.demo.pin);
  });

  it('when a webhook is configured, then the answer holds its whsec_ secret', async () => {
    const answer = await cr.webhooks.configure(receiver.url);
    secret = answer.data.secret;
    expect(secret).toMatch(/^whsec_/);
    expect((await cr.webhooks.get()).data).toMatchObject({ url: receiver.url });
  });

  let invoiceClave: string;
  const firstInvoice = invoice(1);

  it('when an invoice is sent, then polling reaches aceptado and the signed webhook says the same', async () => {
    const sent = await cr.documentos.enviar(firstInvoice);
    invoiceClave = sent.clave;
    expect(invoiceClave).toMatch(/^506\d{47}$/);
    const progress: string[] = [];
    const final = await cr.documentos.esperarVeredicto(invoiceClave, {
      intervalMs: 200,
      onProgress: (p) => progress.push(p.estado),
    });
    expect(final.data.estado).toBe('aceptado');
    expect(progress.at(-1)).toBe('aceptado');
    const delivery = await receiver.waitFor((d) => d.body.includes(invoiceClave));
    const event = await verifyWebhook(delivery.body, delivery.headers, secret);
    expect(event).toMatchObject({ clave: invoiceClave, folioId: invoiceClave, estado: 'aceptado' });
  });

  it('when the same invoice is sent again, then the same clave comes back', async () => {
    const again = await cr.documentos.enviar(firstInvoice, { idempotencyKey: 'pedido-1' });
    expect(again.clave).toBe(invoiceClave);
  });

  it.each([
    ['credit note', () => creditNote(2, invoiceClave), 'INVOICE'],
    ['ticket', () => ticket(3), 'INVOICE'],
    ['debit note', () => debitNoteJson(4, invoiceClave) as DocumentRequest, 'DEBIT_NOTE'],
    ['purchase invoice', () => purchaseInvoiceJson(5) as DocumentRequest, 'INVOICE'],
    ['export invoice', () => exportInvoiceJson(6) as DocumentRequest, 'INVOICE'],
    ['payment receipt', () => paymentReceiptJson(7, invoiceClave) as DocumentRequest, 'PAYMENT_RECEIPT'],
  ])(
    'when a %s is sent, then Hacienda accepts it and the webhook arrives verified',
    async (_kind, make, folioType) => {
      const { clave } = await cr.documentos.enviar(make());
      const final = await cr.documentos.esperarVeredicto(clave, { intervalMs: 200 });
      expect(final.data.estado).toBe('aceptado');
      const delivery = await receiver.waitFor((d) => d.body.includes(clave));
      await expect(verifyWebhook(delivery.body, delivery.headers, secret)).resolves.toMatchObject({
        clave,
        folioType,
      });
    },
  );

  it('when the files are downloaded, then they are the signed comprobante and Hacienda’s answer', async () => {
    const xml = await cr.documentos.descargarXml(invoiceClave);
    expect(xml).toContain('<FacturaElectronica');
    expect(xml).toContain(invoiceClave);
    expect(xml).toContain('ds:Signature');
    const respuesta = await cr.documentos.descargarRespuesta(invoiceClave);
    expect(respuesta).toContain('MensajeHacienda');
    expect(respuesta).toContain(invoiceClave);
  });

  it('when the last event is replayed, then the answer says the endpoint is active and the new delivery verifies', async () => {
    const before = receiver.deliveries.length;
    const replayed = await cr.webhooks.replay(invoiceClave);
    expect(replayed.data).toEqual({ eventId: expect.stringMatching(/^msg_/), webhook: 'activo' });
    const delivery = await receiver.waitFor(
      (d) => receiver.deliveries.indexOf(d) >= before && d.body.includes(invoiceClave),
    );
    await expect(verifyWebhook(delivery.body, delivery.headers, secret)).resolves.toMatchObject({
      estado: 'aceptado',
    });
  });

  it('when CABYS is searched, then the catalogue answers', async () => {
    const found = await cr.hacienda.cabys('software');
    expect(JSON.stringify(found)).toMatch(/\d{13}/);
  });

  it('when the demo taxpayer is looked up, then Hacienda’s registry knows it', async () => {
    const found = await cr.hacienda.contribuyente(DEMO_EMISOR);
    expect(JSON.stringify(found)).toContain('EMPRESA DEMO');
  });
});

describe('errors from the live stack', () => {
  it('when an amount is wrong, then BadRequestError names the field', async () => {
    const bad = invoice(10);
    (bad.detalleServicio[0] as { montoTotal: string }).montoTotal = '9999.00';
    const err = await cr.documentos.enviar(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).message).toContain('montoTotal');
    expect((err as BadRequestError).requestId).toBeTruthy();
  });

  it('when a clave does not exist, then NotFoundError', async () => {
    await expect(cr.documentos.consultar('5'.repeat(50))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('when the password is wrong, then AuthenticationError invalid_credentials', async () => {
    const wrong = createClient({
      authUrl: stack.authUrl,
      tenantUrl: stack.tenantUrl('acme'),
      credentials: { base: 'acme', password: 'not-the-password' },
      fetch: localhostFetch(),
    });
    await expect(wrong.emisores.get(Number(DEMO_EMISOR))).rejects.toMatchObject({
      name: 'AuthenticationError',
      error: 'invalid_credentials',
    });
  });

  it('when the tenant-api sees the token as expired, then a bare token fails with 401 and a client with credentials logs in once, without looping', async () => {
    const token = (await cr.auth.login()).token;
    const bare = createClient({ tenantUrl: stack.tenantUrl('acme'), token, fetch: localhostFetch() });
    stack.advanceTenantClock(9 * 3600);
    try {
      // The tenant-api now sees the token as expired; a bare token cannot be renewed.
      const err = await bare.webhooks.get().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthenticationError);
      expect(err).not.toBeInstanceOf(TokenExpiredError);
      expect((err as AuthenticationError).status).toBe(401);
      // The client with credentials gets a 401 too, logs in once more and succeeds… but its new token is
      // also "expired" for a clock 9 h ahead, so it reports the 401 instead of looping.
      await expect(cr.webhooks.get()).rejects.toMatchObject({ status: 401 });
    } finally {
      stack.advanceTenantClock(-9 * 3600);
    }
    await expect(cr.webhooks.get()).resolves.toMatchObject({ status: 'success' });
  });

  it('when the client logs out, then its token is refused and the next call logs in again', async () => {
    const token = (await cr.auth.login()).token;
    await cr.auth.logout();
    const bare = createClient({ tenantUrl: stack.tenantUrl('acme'), token, fetch: localhostFetch() });
    // The tenant-api learns revocations within its polling interval (500 ms in the stack).
    let refused: unknown;
    for (let i = 0; i < 40 && !refused; i++) {
      refused = await bare.webhooks.get().then(
        () => undefined,
        (e: unknown) => e,
      );
      if (!refused) await new Promise((r) => setTimeout(r, 250));
    }
    expect(refused).toBeInstanceOf(AuthenticationError);
    await expect(cr.webhooks.get()).resolves.toMatchObject({ status: 'success' });
  });
});

interface LossyFetch {
  fetch: FetchLike;
  /** The Idempotency-Key of each request to the path that reached the service. */
  reached: (string | null)[];
}

/** The real services, except that the first answer to `path` is lost: a gateway answers 502 instead. */
function losingFirstAnswer(path: string): LossyFetch {
  const real = localhostFetch();
  const reached: (string | null)[] = [];
  const lossy: FetchLike = async (input, init) => {
    const response = await real(input, init);
    if (new URL(input).pathname !== path) return response;
    reached.push(new Headers(init.headers).get('idempotency-key'));
    if (reached.length > 1) return response;
    await response.arrayBuffer();
    return new Response(JSON.stringify({ error: 'upstream_error', message: 'bad gateway' }), {
      status: 502,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch: lossy, reached };
}

function clientThrough(fetch: FetchLike): CrEinvoiceClient {
  return createClient({
    authUrl: stack.authUrl,
    tenantUrl: stack.tenantUrl('acme'),
    credentials: { base: 'acme', password: PASSWORD },
    fetch,
    retry: { baseDelayMs: 10 },
  });
}

describe('answers lost on the way back from the live stack', () => {
  let clave: string;

  beforeAll(async () => {
    clave = (await cr.documentos.enviar(invoice(20))).clave;
    await cr.documentos.esperarVeredicto(clave, { intervalMs: 200 });
  });

  it('when the answer to a submission is lost, then the SDK sends it again with the same Idempotency-Key and gets its clave', async () => {
    const lossy = losingFirstAnswer('/api/enviar/items');
    const sent = await clientThrough(lossy.fetch).documentos.enviar(invoice(21));
    expect(sent.clave).toMatch(/^506\d{47}$/);
    expect(lossy.reached).toHaveLength(2);
    expect(lossy.reached[1]).toBe(lossy.reached[0]);
  });

  it('when the answer to a replay is lost, then the replay is not sent again', async () => {
    const lossy = losingFirstAnswer('/api/reenviar/webhook');
    await expect(clientThrough(lossy.fetch).webhooks.replay(clave)).rejects.toBeInstanceOf(ServerError);
    expect(lossy.reached).toHaveLength(1);
  });

  it('when the answer to an e-mail resend is lost, then one e-mail is queued, not two', async () => {
    const lossy = losingFirstAnswer('/api/reenviar/correo');
    const resend = clientThrough(lossy.fetch).entrega.reenviarCorreo(clave);
    await expect(resend).rejects.toMatchObject({ status: 502 });
    const { data } = await cr.documentos.consultar(clave);
    expect(data.correo.envios.filter((e) => e.motivo === 'reenvio')).toHaveLength(1);
  });

  it('when the answer to a webhook configuration is lost, then the secret rotates once: the receiver’s secret still signs', async () => {
    const held = (await cr.webhooks.configure(receiver.url)).data.secret;
    const lossy = losingFirstAnswer('/api/configurar/webhook');
    await expect(clientThrough(lossy.fetch).webhooks.configure(receiver.url)).rejects.toMatchObject({
      status: 502,
    });
    expect(lossy.reached).toHaveLength(1);
    const before = receiver.deliveries.length;
    await cr.webhooks.replay(clave);
    const delivery = await receiver.waitFor(
      (d) => receiver.deliveries.indexOf(d) >= before && d.body.includes(clave),
    );
    // Signed with the secret of the lost answer and, for 24 h, the one the receiver holds.
    await expect(verifyWebhook(delivery.body, delivery.headers, held)).resolves.toMatchObject({ clave });
  });
});
