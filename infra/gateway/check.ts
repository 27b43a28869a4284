// Gateway config check: renders the template for `localtest` domains in both variants (TLS with a
// self-signed certificate made by openssl, and plain HTTP) into a temporary prefix and runs `nginx -t`.
// Run: pnpm --filter @cr/e2e check:gateway. Missing nginx skips with a message, except under CI=true.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { findNginx, makeGatewayDir, testNginxConfig } from './nginx-tools';
import { writeGateway } from './render';

export interface CheckOutcome {
  ok: boolean;
  skipped: boolean;
  lines: string[];
}

function makeSelfSignedCert(dir: string, domain: string): { cert: string; key: string } {
  const cert = join(dir, 'tls', 'fullchain.pem');
  const key = join(dir, 'tls', 'privkey.pem');
  mkdirSync(join(dir, 'tls'));
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${domain}`,
      '-addext',
      `subjectAltName=DNS:${domain},DNS:*.${domain},DNS:*.api.${domain}`,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl could not make a test certificate:\n${r.stderr}`);
  return { cert, key };
}

export function checkGateway(domain = 'localtest'): CheckOutcome {
  const nginx = findNginx();
  if (!nginx) {
    const message = 'nginx is not installed (Debian: apt-get install nginx)';
    if (process.env.CI === 'true') return { ok: false, skipped: false, lines: [`gateway: FAIL ${message}`] };
    return { ok: true, skipped: true, lines: [`gateway: skipped, ${message}`] };
  }
  const lines: string[] = [];
  for (const tls of [true, false]) {
    const dir = makeGatewayDir('cr-gateway-check-');
    try {
      const certs = tls ? makeSelfSignedCert(dir, domain) : undefined;
      const conf = writeGateway(
        {
          domain,
          tls,
          httpPort: 8080,
          httpsPort: 8443,
          authUpstream: '127.0.0.1:4000',
          tenantUpstream: '127.0.0.1:4001',
          sandboxUpstream: '127.0.0.1:4002',
          resolver: '127.0.0.1',
          tlsCert: certs?.cert,
          tlsKey: certs?.key,
          accessLog: join(dir, 'access.log'),
          errorLog: join(dir, 'error.log'),
          pidFile: join(dir, 'nginx.pid'),
          tempDir: join(dir, 'temp'),
        },
        dir,
      );
      testNginxConfig(nginx, dir, conf);
      lines.push(`gateway: nginx -t ok (${tls ? 'TLS' : 'plain HTTP'} variant, ${domain})`);
    } catch (err) {
      lines.push(`gateway: FAIL ${(err as Error).message}`);
      return { ok: false, skipped: false, lines };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { ok: true, skipped: false, lines };
}

if (require.main === module) {
  const outcome = checkGateway();
  for (const line of outcome.lines) process.stdout.write(`${line}\n`);
  process.exit(outcome.ok ? 0 : 1);
}
