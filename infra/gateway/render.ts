// Renders the gateway's nginx configuration (nginx.conf.template + json-errors.conf.template) for given
// values: the TLS variant for deployments, the plain-HTTP variant for the loopback end-to-end test.
// Usable as a module (tests) and as a command:
//   pnpm exec tsx infra/gateway/render.ts --out /tmp/gw --domain example.com --tls \
//     --cert /etc/ssl/gw.crt --key /etc/ssl/gw.key --auth auth-server:4000 --tenant tenant-api:4001
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const TEMPLATE_DIR = __dirname;

export interface GatewayRenderOptions {
  /** Base domain: auth.<domain>, <tenant>.api.<domain>, sandbox.<domain>. */
  domain: string;
  /** TLS termination (production) or plain HTTP (loopback tests). */
  tls: boolean;
  /** Address nginx listens on: '*' (default) or e.g. '127.0.0.1'. */
  listen?: string;
  /** Plain HTTP port: the redirect to HTTPS with TLS, the only listener without. Default 80. */
  httpPort?: number;
  /** HTTPS port (TLS only). Default 443. */
  httpsPort?: number;
  /** host:port of the auth-server. */
  authUpstream: string;
  /** host:port of the tenant-api (a DNS name with several addresses is balanced). */
  tenantUpstream: string;
  /** host:port of the hacienda-sandbox; absent → no sandbox.<domain> host. */
  sandboxUpstream?: string;
  /** DNS resolver for the sandbox upstream (resolved per request). Default 127.0.0.11 (Docker's). */
  resolver?: string;
  /** PEM certificate (chain) and key paths (TLS only). */
  tlsCert?: string;
  tlsKey?: string;
  /** Where nginx writes its logs, pid and temporary files. Defaults suit the official nginx image. */
  accessLog?: string;
  errorLog?: string;
  pidFile?: string;
  tempDir?: string;
  /** limit_req rate of POST /login per client address, e.g. '30r/m'. */
  loginRate?: string;
  /** Requests above the rate allowed at once before 429. */
  loginBurst?: number;
  /** limit_req rate of every request to auth.<domain> per client address (default '10r/s'), and its burst. */
  authRate?: string;
  authBurst?: number;
  /** The internal listener serving /admin/ only: address (default '127.0.0.1') and port (default 8081). */
  adminListen?: string;
  adminPort?: number;
  /** client_max_body_size of auth.<domain> (default 16k) and of the tenant/sandbox hosts (default 256k). */
  authBodyLimit?: string;
  tenantBodyLimit?: string;
  /** POST /api/recepcion/documentos only: a supplier's XML in Base64 (tenant-api RECEPCION_BODY_LIMIT). */
  recepcionBodyLimit?: string;
}

export interface RenderedGateway {
  /** File name → content; nginx.conf includes json-errors.conf from its own directory. */
  files: Record<string, string>;
}

const DOMAIN =
  /^(?=.{1,200}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const HOST_PORT = /^(?:[A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):\d{1,5}$/;
const SIZE = /^\d+[km]?$/;
const RATE = /^\d+r\/[sm]$/;
const PATHLIKE = /^[^\s;'"{}$#]+$/;
const LISTEN = /^(?:\*|[0-9.]+|\[[0-9a-fA-F:]+\])$/;

function check(name: string, value: string, pattern: RegExp): string {
  if (!pattern.test(value)) throw new Error(`gateway ${name}: invalid value ${JSON.stringify(value)}`);
  return value;
}

function checkPort(name: string, value: number): string {
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error(`gateway ${name}: invalid port ${value}`);
  }
  return String(value);
}

/** The ${GW_*} values for the options; validated so nothing can inject nginx directives. */
export function gatewayValues(o: GatewayRenderOptions): Record<string, string> {
  if (o.tls && (!o.tlsCert || !o.tlsKey)) throw new Error('gateway tls: tlsCert and tlsKey are required');
  const domain = check('domain', o.domain.toLowerCase(), DOMAIN);
  return {
    GW_DOMAIN: domain,
    GW_DOMAIN_RE: domain.replace(/\./g, '\\.'),
    GW_LISTEN: check('listen', o.listen ?? '*', LISTEN),
    GW_HTTP_PORT: checkPort('httpPort', o.httpPort ?? 80),
    GW_HTTPS_PORT: checkPort('httpsPort', o.httpsPort ?? 443),
    GW_AUTH_UPSTREAM: check('authUpstream', o.authUpstream, HOST_PORT),
    GW_TENANT_UPSTREAM: check('tenantUpstream', o.tenantUpstream, HOST_PORT),
    GW_SANDBOX_UPSTREAM: check('sandboxUpstream', o.sandboxUpstream ?? '127.0.0.1:9', HOST_PORT),
    GW_RESOLVER: check('resolver', o.resolver ?? '127.0.0.11', /^[0-9a-fA-F.:[\]]+$/),
    GW_TLS_CERT: check('tlsCert', o.tlsCert ?? '/etc/nginx/tls/fullchain.pem', PATHLIKE),
    GW_TLS_KEY: check('tlsKey', o.tlsKey ?? '/etc/nginx/tls/privkey.pem', PATHLIKE),
    GW_ACCESS_LOG: check('accessLog', o.accessLog ?? '/dev/stdout', PATHLIKE),
    GW_ERROR_LOG: check('errorLog', o.errorLog ?? '/dev/stderr', PATHLIKE),
    GW_PID_FILE: check('pidFile', o.pidFile ?? '/var/run/nginx.pid', PATHLIKE),
    GW_TEMP_DIR: check('tempDir', o.tempDir ?? '/var/cache/nginx', PATHLIKE),
    GW_LOGIN_RATE: check('loginRate', o.loginRate ?? '30r/m', RATE),
    GW_LOGIN_BURST: String(check('loginBurst', String(o.loginBurst ?? 10), /^\d{1,5}$/)),
    GW_AUTH_RATE: check('authRate', o.authRate ?? '10r/s', RATE),
    GW_AUTH_BURST: String(check('authBurst', String(o.authBurst ?? 20), /^\d{1,5}$/)),
    GW_ADMIN_LISTEN: check('adminListen', o.adminListen ?? '127.0.0.1', LISTEN),
    GW_ADMIN_PORT: checkPort('adminPort', o.adminPort ?? 8081),
    GW_AUTH_BODY_LIMIT: check('authBodyLimit', o.authBodyLimit ?? '16k', SIZE),
    GW_TENANT_BODY_LIMIT: check('tenantBodyLimit', o.tenantBodyLimit ?? '256k', SIZE),
    GW_RECEPCION_BODY_LIMIT: check('recepcionBodyLimit', o.recepcionBodyLimit ?? '4m', SIZE),
  };
}

/** Applies the #@tls / #@plain / #@sandbox markers, then substitutes ${GW_*}. */
export function renderTemplate(
  template: string,
  values: Record<string, string>,
  flags: { tls: boolean; sandbox: boolean },
): string {
  const out: string[] = [];
  const dropping: string[] = [];
  for (const line of template.split('\n')) {
    const block = /^\s*#@(tls|sandbox)-(begin|end)\s*$/.exec(line);
    if (block) {
      const [, flag, edge] = block as unknown as [string, 'tls' | 'sandbox', 'begin' | 'end'];
      if (edge === 'begin' && !flags[flag]) dropping.push(flag);
      if (edge === 'end' && dropping[dropping.length - 1] === flag) dropping.pop();
      continue;
    }
    if (dropping.length > 0) continue;
    if (/#@tls\s*$/.test(line)) {
      if (flags.tls) out.push(line.replace(/\s*#@tls\s*$/, ''));
      continue;
    }
    const plain = /^(\s*)#@plain (.*)$/.exec(line);
    if (plain) {
      if (!flags.tls) out.push(`${plain[1]}${plain[2]}`);
      continue;
    }
    out.push(line);
  }
  if (dropping.length > 0) throw new Error(`gateway template: unterminated #@${dropping.join(', #@')}-begin`);
  const text = out.join('\n').replace(/\$\{(GW_[A-Z0-9_]+)\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`gateway template: no value for \${${name}}`);
    return value;
  });
  return text;
}

export function renderGateway(options: GatewayRenderOptions): RenderedGateway {
  const values = gatewayValues(options);
  const flags = { tls: options.tls, sandbox: options.sandboxUpstream !== undefined };
  const files: Record<string, string> = {};
  for (const name of ['nginx.conf', 'json-errors.conf']) {
    const template = readFileSync(join(TEMPLATE_DIR, `${name}.template`), 'utf8');
    files[name] = renderTemplate(template, values, flags);
  }
  return { files };
}

/** Renders into `outDir` and returns the path of nginx.conf. */
export function writeGateway(options: GatewayRenderOptions, outDir: string): string {
  mkdirSync(outDir, { recursive: true });
  const { files } = renderGateway(options);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(outDir, name), content);
  return join(outDir, 'nginx.conf');
}

function runCli(): void {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      domain: { type: 'string' },
      tls: { type: 'boolean', default: false },
      listen: { type: 'string' },
      'http-port': { type: 'string' },
      'https-port': { type: 'string' },
      auth: { type: 'string', default: 'auth-server:4000' },
      tenant: { type: 'string', default: 'tenant-api:4001' },
      sandbox: { type: 'string' },
      resolver: { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      'access-log': { type: 'string' },
      'error-log': { type: 'string' },
      pid: { type: 'string' },
      'temp-dir': { type: 'string' },
      'login-rate': { type: 'string' },
      'login-burst': { type: 'string' },
      'admin-listen': { type: 'string' },
      'admin-port': { type: 'string' },
    },
  });
  if (!values.out || !values.domain) {
    process.stderr.write(
      'usage: render.ts --out DIR --domain DOMAIN [--tls --cert PEM --key PEM] [options]\n',
    );
    process.exit(2);
  }
  const confPath = writeGateway(
    {
      domain: values.domain,
      tls: values.tls ?? false,
      listen: values.listen,
      httpPort: values['http-port'] ? Number(values['http-port']) : undefined,
      httpsPort: values['https-port'] ? Number(values['https-port']) : undefined,
      authUpstream: values.auth ?? 'auth-server:4000',
      tenantUpstream: values.tenant ?? 'tenant-api:4001',
      sandboxUpstream: values.sandbox,
      resolver: values.resolver,
      tlsCert: values.cert,
      tlsKey: values.key,
      accessLog: values['access-log'],
      errorLog: values['error-log'],
      pidFile: values.pid,
      tempDir: values['temp-dir'],
      loginRate: values['login-rate'],
      loginBurst: values['login-burst'] ? Number(values['login-burst']) : undefined,
      adminListen: values['admin-listen'],
      adminPort: values['admin-port'] ? Number(values['admin-port']) : undefined,
    },
    resolve(values.out),
  );
  process.stdout.write(`${confPath}\n`);
}

if (require.main === module) runCli();
