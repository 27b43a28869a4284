// Starts the real nginx gateway for end-to-end tests: the repository's template rendered in its plain-HTTP
// variant for `<domain>` (e.g. `localtest`), listening on a free loopback port, proxying to apps on loopback.
// Installs nothing: .ci/run installs Debian's nginx beforehand; elsewhere a missing nginx is a clear error.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { freePort } from '@cr/testkit';
import { makeGatewayDir, requireNginx, testNginxConfig } from '../../../infra/gateway/nginx-tools';
import { type GatewayRenderOptions, writeGateway } from '../../../infra/gateway/render';

export { findNginx, requireNginx, testNginxConfig } from '../../../infra/gateway/nginx-tools';

export interface StartGatewayOptions {
  /** Base domain, e.g. 'localtest' → auth.localtest, acme.api.localtest, sandbox.localtest. */
  domain: string;
  authPort: number;
  tenantPort: number;
  /** Omitted → no sandbox.<domain> host (unknown host → 404). */
  sandboxPort?: number;
  /** Overrides for limits (tests of the limits themselves use small ones). */
  loginRate?: GatewayRenderOptions['loginRate'];
  loginBurst?: GatewayRenderOptions['loginBurst'];
  authRate?: GatewayRenderOptions['authRate'];
  authBurst?: GatewayRenderOptions['authBurst'];
  authBodyLimit?: GatewayRenderOptions['authBodyLimit'];
  tenantBodyLimit?: GatewayRenderOptions['tenantBodyLimit'];
  /** Terminate TLS with this certificate (PEM paths); httpPort then only redirects to httpsPort. */
  tls?: { cert: string; key: string };
}

export interface Gateway {
  /** Loopback port nginx listens on (plain HTTP; with TLS it only redirects). */
  httpPort: number;
  /** Loopback HTTPS port, when started with `tls`. */
  httpsPort?: number;
  /** Loopback port of the internal listener that serves the auth-server's /admin/ (and nothing else). */
  adminPort: number;
  /** Directory holding the rendered config and logs. */
  dir: string;
  /** The access log so far, one JSON object per line. */
  accessLog(): Array<Record<string, unknown>>;
  /** nginx's error log so far (for failure messages). */
  errorLog(): string;
  stop(): Promise<void>;
}

export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  const nginx = requireNginx();
  const dir = makeGatewayDir();
  const httpPort = await freePort();
  const httpsPort = options.tls ? await freePort() : undefined;
  const adminPort = await freePort();
  const confPath = writeGateway(
    {
      domain: options.domain,
      tls: options.tls !== undefined,
      tlsCert: options.tls?.cert,
      tlsKey: options.tls?.key,
      listen: '127.0.0.1',
      httpPort,
      httpsPort,
      authUpstream: `127.0.0.1:${options.authPort}`,
      tenantUpstream: `127.0.0.1:${options.tenantPort}`,
      sandboxUpstream: options.sandboxPort === undefined ? undefined : `127.0.0.1:${options.sandboxPort}`,
      resolver: '127.0.0.1',
      accessLog: join(dir, 'access.log'),
      errorLog: join(dir, 'error.log'),
      pidFile: join(dir, 'nginx.pid'),
      tempDir: join(dir, 'temp'),
      loginRate: options.loginRate,
      loginBurst: options.loginBurst,
      authRate: options.authRate,
      authBurst: options.authBurst,
      adminListen: '127.0.0.1',
      adminPort,
      authBodyLimit: options.authBodyLimit,
      tenantBodyLimit: options.tenantBodyLimit,
    },
    dir,
  );
  testNginxConfig(nginx, dir, confPath);
  const child: ChildProcess = spawn(
    nginx,
    ['-p', dir, '-c', confPath, '-e', join(dir, 'error.log'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const readLog = (name: string) => {
    const p = join(dir, name);
    return existsSync(p) ? readFileSync(p, 'utf8') : '';
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`nginx exited with ${child.exitCode}:\n${output}\n${readLog('error.log')}`);
    }
    const up = await gatewayRequest(httpPort, { host: `unknown.${options.domain}`, path: '/' }).then(
      (r) => r.status === (options.tls ? 301 : 404),
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not answer in time:\n${output}\n${readLog('error.log')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    httpPort,
    httpsPort,
    adminPort,
    dir,
    accessLog: () =>
      readLog('access.log')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    errorLog: () => readLog('error.log'),
    stop: () =>
      new Promise<void>((done) => {
        const finish = () => {
          rmSync(dir, { recursive: true, force: true });
          done();
        };
        if (child.exitCode !== null) return finish();
        child.once('exit', finish);
        child.kill('SIGQUIT'); // graceful: finish in-flight requests
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

export interface GatewayRequest {
  /** Host header, e.g. 'acme.api.localtest' (the gateway routes by it). */
  host: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface GatewayResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = unknown>(): T;
}

/** One HTTP request to the gateway on 127.0.0.1 with the given Host (fetch cannot set Host). */
export function gatewayRequest(port: number, req: GatewayRequest): Promise<GatewayResponse> {
  return new Promise((resolveResponse, reject) => {
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    const headers: Record<string, string> = { host: req.host, ...req.headers };
    if (body) headers['content-length'] = String(body.length);
    const r = httpRequest(
      { host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolveResponse({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}
