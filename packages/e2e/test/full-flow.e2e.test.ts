// The whole flow through the real nginx gateway, as a client on the internet sees it: the three apps run as
// their own processes (as `pnpm start` runs them), the gateway is the repository's template rendered for
// `localtest`, and every request of the flow goes to the gateway with the Host a client would use:
//   the admin listener   the operator creates the clients (auth.localtest refuses /admin/ with 404);
//   auth.localtest       acme logs in;
//   sandbox.localtest    test setup only: a Hacienda user and a .p12 issued by the sandbox's test CA;
//   acme.api.localtest   acme registers its issuer, configures its webhook, submits an invoice;
//   → the tenant-api signs and sends it to the sandbox (app to app, as inside a cluster), follows it to
//     aceptado and POSTs the signed webhook to a receiver on 127.0.0.1 carrying MensajeHacienda Mensaje 1;
//   globex.api.localtest refuses acme's token; an unknown host gets the gateway's own 404.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppProcess,
  REPO_ROOT,
  freePort,
  haciendaDataDir,
  requireResource,
  startApp,
  xsdDir,
} from '@cr/testkit';
import { verifySignature } from '@cr/webhooks';
import { type Gateway, type GatewayResponse, findNginx, gatewayRequest, startGateway } from '../src';

jest.setTimeout(240_000);

const DOMAIN = 'localtest';
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const HACIENDA_USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const HACIENDA_PASSWORD = 'S3cr3t-Hacienda!';
const PIN = '4821';
const EMISOR = '3101123456';

// The submission pipeline (POST /api/enviar/items and its Hacienda jobs) is its own branch; until it is on
// main the document step cannot run, everything else does.
const submissionPresent = existsSync(
  join(REPO_ROOT, 'apps', 'tenant-api', 'src', 'routes', 'documents', 'index.ts'),
);
const nginxPresent = requireResource('nginx (Debian package nginx)', findNginx() !== undefined);
const describeIf = nginxPresent ? describe : describe.skip;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** The client's webhook endpoint: records every request and answers 204. */
function startReceiver(port: number): Promise<{ server: Server; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  return new Promise((done) => server.listen(port, '127.0.0.1', () => done({ server, received })));
}

/** Costa Rica local time a few seconds ago, as a client writes fechaEmision. */
function crNow(): string {
  const t = new Date(Date.now() - 5_000 - 6 * 3_600_000);
  return `${t.toISOString().slice(0, 19)}-06:00`;
}

describeIf('the whole flow through the gateway', () => {
  const dirs: string[] = [];
  let auth: AppProcess;
  let sandbox: AppProcess;
  let tenant: AppProcess;
  let gateway: Gateway;
  let receiver: { server: Server; received: Received[] };
  let receiverPort: number;
  let token: string;
  let webhookSecret: string;

  const tempDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `e2e-${name}-`));
    dirs.push(dir);
    return dir;
  };

  /** One request through the gateway (its public port, or `port`); JSON in, the response out. */
  const call = (
    host: string,
    method: string,
    path: string,
    body?: unknown,
    bearer?: string,
    port = gateway.httpPort,
  ): Promise<GatewayResponse> =>
    gatewayRequest(port, {
      host,
      method,
      path,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** Access log lines matching `pick`, once there are `count` (nginx writes a line just after responding). */
  const logged = async (pick: (line: Record<string, unknown>) => boolean, count: number) => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const lines = gateway.accessLog().filter(pick);
      if (lines.length >= count || Date.now() > deadline) return lines;
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const explain = (r: GatewayResponse) =>
    `${r.status} ${r.text}\n--- gateway\n${gateway.errorLog()}\n--- tenant-api\n${tenant?.output().slice(-4000)}`;

  beforeAll(async () => {
    // The embedded engine for every app: each has its own database, as in production.
    const common = { DATABASE_URL: undefined, LOG_LEVEL: 'warn', TRUST_PROXY: 'true' };
    [auth, sandbox] = await Promise.all([
      startApp({
        app: 'auth-server',
        portVar: 'AUTH_PORT',
        env: {
          ...common,
          DATA_DIR: tempDir('auth'),
          AUTH_ISSUER: `http://auth.${DOMAIN}`,
          AUTH_AUDIENCE: 'tenant-api',
          AUTH_ADMIN_TOKEN: ADMIN_TOKEN,
          // Cheap hashes: the flow is under test, not argon2's cost.
          ARGON2_MEMORY_KIB: '8192',
          ARGON2_TIME_COST: '1',
        },
        timeoutMs: 120_000,
      }),
      startApp({
        app: 'hacienda-sandbox',
        portVar: 'SANDBOX_PORT',
        env: {
          ...common,
          DATA_DIR: tempDir('sandbox'),
          SANDBOX_PUBLIC_URL: undefined,
          SANDBOX_PROCESSING_DELAY_MS: '0',
          SANDBOX_CALLBACK_RETRY_DELAY_MS: '50',
          HACIENDA_XSD_DIR: xsdDir(),
          HACIENDA_DATA_DIR: haciendaDataDir(),
        },
        timeoutMs: 120_000,
      }),
    ]);
    tenant = await startApp({
      app: 'tenant-api',
      portVar: 'TENANT_PORT',
      env: {
        ...common,
        DATA_DIR: tempDir('tenant'),
        TENANT_BASE_DOMAIN: `api.${DOMAIN}`,
        // Inside the network, as compose does: keys and revocations straight from the auth-server.
        AUTH_JWKS_URL: `${auth.url}/.well-known/jwks.json`,
        AUTH_REVOCATIONS_URL: `${auth.url}/revocations`,
        AUTH_ISSUER: `http://auth.${DOMAIN}`,
        AUTH_AUDIENCE: 'tenant-api',
        // Where Hacienda's callback would reach the tenant-api: the gateway's callbacks host. The sandbox
        // cannot resolve *.localtest, so here the status polling alone finishes a document.
        PUBLIC_URL: `http://callbacks.api.${DOMAIN}`,
        PROVEEDOR_SISTEMAS: EMISOR,
        HACIENDA_IDP_URL_TEST: `${sandbox.url}/auth/realms/rut-stag/protocol/openid-connect/token`,
        HACIENDA_IDP_URL_PROD: `${sandbox.url}/auth/realms/rut/protocol/openid-connect/token`,
        HACIENDA_RECEPCION_URL_TEST: `${sandbox.url}/recepcion/v1`,
        HACIENDA_RECEPCION_URL_PROD: `${sandbox.url}/recepcion/v1`,
        HACIENDA_PUBLIC_API_URL: sandbox.url,
        HACIENDA_DATA_DIR: haciendaDataDir(),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '5000',
        JOBS_POLL_INTERVAL_MS: '100',
      },
      timeoutMs: 120_000,
    });
    gateway = await startGateway({
      domain: DOMAIN,
      authPort: auth.port,
      tenantPort: tenant.port,
      sandboxPort: sandbox.port,
    });
    receiverPort = await freePort();
    receiver = await startReceiver(receiverPort);
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([tenant?.stop(), auth?.stop(), sandbox?.stop()]);
    await new Promise((done) => (receiver ? receiver.server.close(() => done(undefined)) : done(undefined)));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('when the operator creates clients through the internal admin listener, then they exist; auth.<domain> refuses /admin/', async () => {
    const publicAttempt = await call(
      `auth.${DOMAIN}`,
      'POST',
      '/admin/clients',
      { base: 'intruder', password: 'intruder-password-1234' },
      ADMIN_TOKEN,
    );
    expect(publicAttempt.status).toBe(404);
    for (const base of ['acme', 'globex']) {
      const created = await call(
        'localhost',
        'POST',
        '/admin/clients',
        { base, password: `${base}-password-1234` },
        ADMIN_TOKEN,
        gateway.adminPort,
      );
      expect(created.status).toBe(201);
      expect(created.json()).toMatchObject({ base });
    }
    const anonymous = await call(
      'localhost',
      'POST',
      '/admin/clients',
      { base: 'intruder', password: 'intruder-password-1234' },
      undefined,
      gateway.adminPort,
    );
    expect(anonymous.status).toBe(401);
  });

  it('when acme logs in at auth.<domain>, then it gets a bearer token issued by http://auth.<domain>', async () => {
    const login = await call(`auth.${DOMAIN}`, 'POST', '/login', {
      base: 'acme',
      password: 'acme-password-1234',
    });
    expect(login.status).toBe(200);
    const body = login.json<{ token: string; token_type: string }>();
    expect(body.token_type).toBe('Bearer');
    token = body.token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8'));
    expect(claims).toMatchObject({ iss: `http://auth.${DOMAIN}`, aud: 'tenant-api' });
    // Exactly one id (the gateway's; the app's echo of it is not repeated), the one in the access log.
    expect(login.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    const line = await logged((l) => l.host === `auth.${DOMAIN}` && l.path === '/login', 1);
    expect(line[0]).toMatchObject({
      status: 200,
      upstream_status: '200',
      request_id: login.headers['x-request-id'],
    });
  });

  it('when acme registers its issuer at acme.api.<domain> with a .p12 from the sandbox CA, then it is stored', async () => {
    // Test setup on the sandbox (the stand-in for Hacienda): the issuer's Hacienda user and certificate.
    const user = await call(`sandbox.${DOMAIN}`, 'POST', '/sandbox/usuarios', {
      username: HACIENDA_USER,
      password: HACIENDA_PASSWORD,
    });
    expect(user.status).toBeLessThan(300);
    const cert = await call(`sandbox.${DOMAIN}`, 'POST', '/sandbox/certificados', {
      identificacion: EMISOR,
      tipoIdentificacion: '02',
      nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
      pin: PIN,
    });
    expect(cert.status).toBeLessThan(300);
    const p12 = cert.json<{ p12: string }>().p12;

    const registered = await call(
      `acme.api.${DOMAIN}`,
      'POST',
      '/api/enviar/emisor',
      {
        identificacion: Number(EMISOR),
        tipoIdentificacion: 2,
        codigoActividad: 6201.0,
        sucursal: 1,
        nombreComercial: 'Acme Soluciones',
        telefono: '22223333',
        correoElectronico: 'facturas@acme.cr',
        ubicacion: {
          provincia: '1',
          canton: '01',
          distrito: '01',
          barrio: '02',
          direccion: 'Avenida 1, calle 2, edificio azul',
        },
        ambiente: 2,
        usuarioHacienda: HACIENDA_USER,
        claveHacienda: Buffer.from(HACIENDA_PASSWORD).toString('base64'),
        pinCertificado: PIN,
        certificadoHacienda: p12,
      },
      token,
    );
    expect(registered.status).toBe(200);
    // The secrets went in and never come back out.
    expect(registered.text).not.toContain(PIN);
    expect(registered.text).not.toContain(p12.slice(0, 40));
  });

  it('when acme configures its webhook at acme.api.<domain>, then it gets the signing secret once', async () => {
    const configured = await call(
      `acme.api.${DOMAIN}`,
      'POST',
      '/api/configurar/webhook',
      { url: `http://127.0.0.1:${receiverPort}/hooks/einvoice` },
      token,
    );
    expect(configured.status).toBe(200);
    expect(configured.headers['cache-control']).toBe('no-store');
    webhookSecret = configured.json<{ data: { secret: string } }>().data.secret;
    expect(webhookSecret).toMatch(/^whsec_/);
  });

  (submissionPresent ? it : it.skip)(
    'when acme submits an invoice at acme.api.<domain>, then the signed webhook brings Mensaje 1',
    async () => {
      const submitted = await call(
        `acme.api.${DOMAIN}`,
        'POST',
        '/api/enviar/items',
        {
          emisor: EMISOR,
          numeroReferencia: 1,
          codigoActividad: '6201.0',
          tipoDoc: '1',
          folioType: 'INVOICE',
          fechaEmision: crNow(),
          receptor: {
            nombre: 'Pixdea SA',
            identificacion: { tipo: '02', numero: '3101779527' },
            correoElectronico: 'xavier@pixdea.com',
          },
          detalleServicio: [
            {
              numeroLinea: 1,
              codigo: '8314300000000',
              detalle: 'Servicio de prueba 1',
              cantidad: 1,
              unidadMedida: 'Sp',
              precioUnitario: '1000.00',
              subTotal: '1000.00000',
              descuento: '0.00',
              montoTotal: '1000.00000',
              impuestoNeto: 130,
              montoTotalLinea: 1130,
              impuesto: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '130.00000' }],
            },
          ],
          resumenFactura: {
            codigoTipoMoneda: { codigoMoneda: 'CRC' },
            mediosPago: [{ tipoMedioPago: '01' }],
          },
        },
        token,
      );
      if (submitted.status !== 200) throw new Error(explain(submitted));
      const clave = submitted.json<{ clave: string }>().clave;
      expect(clave).toMatch(/^506\d{47}$/);

      const deadline = Date.now() + 60_000;
      while (receiver.received.length === 0) {
        if (Date.now() > deadline) {
          const seen = await call(`acme.api.${DOMAIN}`, 'POST', '/api/consultar/documento', { clave }, token);
          throw new Error(`no webhook within 60 s; the document: ${explain(seen)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const [delivery] = receiver.received as [Received];
      const header = (name: string) => String(delivery.headers[name] ?? '');
      expect(
        verifySignature(
          webhookSecret,
          {
            id: header('webhook-id'),
            timestamp: header('webhook-timestamp'),
            signature: header('webhook-signature'),
          },
          delivery.body,
        ),
      ).toBe(true);
      // A byte changed is refused: the signature covers the raw body.
      expect(
        verifySignature(
          webhookSecret,
          {
            id: header('webhook-id'),
            timestamp: header('webhook-timestamp'),
            signature: header('webhook-signature'),
          },
          delivery.body.replace('aceptado', 'rechazado'),
        ),
      ).toBe(false);
      const event = JSON.parse(delivery.body) as {
        clave: string;
        estado: string;
        folioType: string;
        folioDetails: Array<{ fileType: string; encodedFile: string }>;
      };
      expect(event).toMatchObject({ clave, folioId: clave, estado: 'aceptado', folioType: 'INVOICE' });
      const mensajeHacienda = Buffer.from(event.folioDetails[0]?.encodedFile ?? '', 'base64').toString(
        'utf8',
      );
      expect(mensajeHacienda).toContain('<MensajeHacienda');
      expect(mensajeHacienda).toMatch(/<Mensaje>1<\/Mensaje>/);
      expect(mensajeHacienda).toContain(clave);

      // The document as acme reads it back through the gateway.
      const found = await call(`acme.api.${DOMAIN}`, 'POST', '/api/consultar/documento', { clave }, token);
      expect(found.status).toBe(200);
      expect(found.json()).toMatchObject({ data: { estado: 'aceptado', mensajeHacienda: { mensaje: 1 } } });

      // Hacienda's callback host reaches the tenant-api (its answer, not the gateway's 404).
      const callback = await call(
        `callbacks.api.${DOMAIN}`,
        'POST',
        `/hacienda/callback/${randomBytes(32).toString('base64url')}`,
        {},
      );
      expect(callback.status).toBe(404);
      expect(callback.json()).toMatchObject({ error: 'not_found', message: 'unknown callback' });
    },
  );

  it("when acme's token is used at globex.api.<domain>, then the tenant-api refuses it with 401", async () => {
    const own = await call(`acme.api.${DOMAIN}`, 'POST', '/api/consultar/webhook', {}, token);
    expect(own.status).toBe(200);
    const other = await call(`globex.api.${DOMAIN}`, 'POST', '/api/consultar/webhook', {}, token);
    expect(other.status).toBe(401);
    expect(other.json()).toMatchObject({ error: 'unauthorized' });
    expect(other.text).not.toContain('hooks/einvoice');
  });

  it('when a request names an unknown host, then the gateway itself answers 404', async () => {
    for (const host of [`unknown.${DOMAIN}`, 'acme.api.example.com', `a.b.api.${DOMAIN}`]) {
      const r = await call(host, 'POST', '/api/consultar/webhook', {}, token);
      expect(r.status).toBe(404);
      expect(r.json()).toMatchObject({ error: 'not_found' });
    }
    // The gateway answered them itself: no upstream was asked.
    const hosts = [`unknown.${DOMAIN}`, 'acme.api.example.com', `a.b.api.${DOMAIN}`];
    const unknown = await logged(
      (l) => l.path === '/api/consultar/webhook' && hosts.includes(String(l.host)),
      hosts.length,
    );
    expect(unknown).toHaveLength(3);
    for (const l of unknown) expect(l).toMatchObject({ status: 404, upstream_addr: '' });
  });
});
