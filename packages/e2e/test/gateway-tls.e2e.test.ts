// Gateway TLS termination, for real: the TLS variant of the repository's config with a self-signed
// certificate made by openssl, checked with curl (--resolve pins the names to 127.0.0.1).
// STAND-IN: the upstream is a tiny echo server taking the place of the apps ONLY in this gateway test.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireResource } from '@cr/testkit';
import { findNginx, type Gateway, startGateway } from '../src';

const tools =
  findNginx() !== undefined &&
  spawnSync('openssl', ['version']).status === 0 &&
  spawnSync('curl', ['--version']).status === 0;
const describeWithTools = requireResource('nginx, openssl and curl', tools) ? describe : describe.skip;

// Asynchronous: the stand-in upstream runs in this process and must keep answering while curl waits.
function curl(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('curl', ['-sS', '--max-time', '5', ...args], { encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ status: code, stdout, stderr });
    });
  });
}

describeWithTools('gateway TLS termination (stand-in upstream)', () => {
  let dir: string;
  let upstream: Server;
  let gw: Gateway;
  let resolve: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cr-gw-tls-'));
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localtest',
      '-addext',
      'subjectAltName=DNS:auth.localtest,DNS:*.api.localtest',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    expect(made.status).toBe(0);
    upstream = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ proto: req.headers['x-forwarded-proto'], host: req.headers['x-forwarded-host'] }),
      );
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    gw = await startGateway({ domain: 'localtest', authPort: port, tenantPort: port, tls: { cert, key } });
    resolve = ['auth.localtest', 'acme.api.localtest', 'www.localtest'].flatMap((h) => [
      '--resolve',
      `${h}:${gw.httpsPort}:127.0.0.1`,
      '--resolve',
      `${h}:${gw.httpPort}:127.0.0.1`,
    ]);
  });

  afterAll(async () => {
    await gw?.stop();
    upstream?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('when a client speaks TLS 1.2 or 1.3, then the tenant host answers with HSTS and X-Forwarded-Proto https', async () => {
    for (const version of ['--tlsv1.2', '--tlsv1.3']) {
      const r = await curl([
        ...resolve,
        '-k',
        version,
        '-i',
        `https://acme.api.localtest:${gw.httpsPort}/api/x`,
      ]);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^HTTP\/1\.1 200/);
      expect(r.stdout).toMatch(/strict-transport-security: max-age=63072000; includeSubDomains/i);
      expect(r.stdout).toContain('"proto":"https"');
      expect(r.stdout).toContain('"host":"acme.api.localtest"');
    }
  });

  test('when a client offers only TLS 1.1, then the handshake fails', async () => {
    const r = await curl([
      ...resolve,
      '-k',
      '--tlsv1.1',
      '--tls-max',
      '1.1',
      `https://auth.localtest:${gw.httpsPort}/`,
    ]);
    expect(r.status).not.toBe(0);
  });

  test('when a client uses plain HTTP, then it is redirected to HTTPS', async () => {
    const r = await curl([...resolve, '-i', `http://auth.localtest:${gw.httpPort}/login?x=1`]);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 301/);
    expect(r.stdout).toMatch(
      new RegExp(`location: https://auth\\.localtest:${gw.httpsPort}/login\\?x=1`, 'i'),
    );
  });

  test('when an unknown host is asked over TLS, then 404 JSON', async () => {
    const r = await curl([...resolve, '-k', `https://www.localtest:${gw.httpsPort}/`]);
    expect(JSON.parse(r.stdout)).toEqual({ error: 'not_found', message: expect.any(String) });
  });
});
