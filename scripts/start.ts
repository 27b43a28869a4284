// `pnpm start`: runs every app that exists, on the fixed ports, with embedded databases under ./.data and
// development secrets generated on first start. Every setting can be overridden by the environment.
// It runs what ships (ADR 0033): each app's bundle, built first by turbo (cached while nothing changed) and
// started as the images start it, `node --enable-source-maps dist/main.js`.
// With DATABASE_URL (or AUTH_/TENANT_/SANDBOX_DATABASE_URL) each service gets a PostgreSQL database of its
// own (`@cr/devstack`, docs/configuration.md): their tables would collide in one.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  SERVICE_DATABASES,
  type ServiceName,
  buildAppBundles,
  bundleNodePath,
  ensureDerivedDatabases,
  loadOrCreateDevSecret,
  serviceDatabases,
  serviceMemoryEnv,
} from '@cr/devstack';
import { type RunningMailCatcher, startMailCatcher } from '@cr/mail-catcher';

const root = join(__dirname, '..');
const dataRoot = process.env.DATA_ROOT ?? join(root, '.data');

const env = (name: string, fallback: string): string => process.env[name] ?? fallback;

// Loopback unless HOST (or an app's own *_HOST) says otherwise: the development stack has an open sandbox
// admin API and development keys, and must not be reachable from the network by default.
const host = env('HOST', '127.0.0.1');
const probeHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;

const authPort = env('AUTH_PORT', '4000');
// The mail catcher (@cr/mail-catcher) takes the tenant-api's e-mail unless SMTP_URL points elsewhere.
const mailSmtpPort = env('MAIL_CATCHER_SMTP_PORT', '1025');
const mailWebPort = env('MAIL_CATCHER_WEB_PORT', '8025');
const useMailCatcher = process.env.SMTP_URL === undefined;
const tenantPort = env('TENANT_PORT', '4001');
const sandboxPort = env('SANDBOX_PORT', '4002');
const authUrl = `http://localhost:${authPort}`;
const sandboxUrl = `http://localhost:${sandboxPort}`;
const authDataDir = env('AUTH_DATA_DIR', join(dataRoot, 'auth-server'));
const sandboxDataDir = env('SANDBOX_DATA_DIR', join(dataRoot, 'hacienda-sandbox'));
// Hacienda's answers, and suppliers' signing certificates, must chain to a pinned CA: here the sandbox's,
// which it writes before it listens (it issues both Hacienda's seal and the taxpayers' keys).
const sandboxCaFile = join(sandboxDataDir, 'keys', 'ca-cert.pem');
const sandboxCa: Record<string, string> = existsSync(join(root, 'apps', 'hacienda-sandbox', 'src', 'main.ts'))
  ? {
      HACIENDA_CA_BUNDLE: env('HACIENDA_CA_BUNDLE', sandboxCaFile),
      RECEPCION_CA_BUNDLE: env('RECEPCION_CA_BUNDLE', sandboxCaFile),
    }
  : {};
// Kept where the auth-server's CLI (`pnpm admin …`) looks for it when AUTH_ADMIN_TOKEN is unset; written whole
// and flushed, as the apps' own development secrets are.
const adminToken =
  process.env.AUTH_ADMIN_TOKEN ??
  loadOrCreateDevSecret(
    join(authDataDir, 'dev-admin-token'),
    () => randomBytes(24).toString('base64url'),
    undefined,
    'AUTH_ADMIN_TOKEN',
  );

interface AppSpec {
  name: ServiceName;
  port: string;
  env: Record<string, string>;
}

const apps: AppSpec[] = [
  {
    name: 'auth-server',
    port: authPort,
    env: {
      AUTH_PORT: authPort,
      AUTH_HOST: env('AUTH_HOST', host),
      METRICS_PORT: env('AUTH_METRICS_PORT', '9400'),
      METRICS_HOST: env('METRICS_HOST', host),
      AUTH_ISSUER: env('AUTH_ISSUER', authUrl),
      AUTH_AUDIENCE: env('AUTH_AUDIENCE', 'tenant-api'),
      AUTH_ADMIN_TOKEN: adminToken,
      DATA_DIR: authDataDir,
    },
  },
  {
    name: 'hacienda-sandbox',
    port: sandboxPort,
    env: {
      SANDBOX_PORT: sandboxPort,
      SANDBOX_HOST: env('SANDBOX_HOST', host),
      METRICS_PORT: env('SANDBOX_METRICS_PORT', '9402'),
      METRICS_HOST: env('METRICS_HOST', host),
      SANDBOX_PUBLIC_URL: env('SANDBOX_PUBLIC_URL', sandboxUrl),
      DATA_DIR: sandboxDataDir,
    },
  },
  {
    name: 'tenant-api',
    port: tenantPort,
    env: {
      TENANT_PORT: tenantPort,
      TENANT_HOST: env('TENANT_HOST', host),
      METRICS_PORT: env('TENANT_METRICS_PORT', '9401'),
      METRICS_HOST: env('METRICS_HOST', host),
      AUTH_JWKS_URL: env('AUTH_JWKS_URL', `${authUrl}/.well-known/jwks.json`),
      AUTH_ISSUER: env('AUTH_ISSUER', authUrl),
      AUTH_AUDIENCE: env('AUTH_AUDIENCE', 'tenant-api'),
      PUBLIC_URL: env('PUBLIC_URL', `http://localhost:${tenantPort}`),
      HACIENDA_IDP_URL_TEST: env(
        'HACIENDA_IDP_URL_TEST',
        `${sandboxUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
      ),
      HACIENDA_RECEPCION_URL_TEST: env('HACIENDA_RECEPCION_URL_TEST', `${sandboxUrl}/recepcion/v1`),
      HACIENDA_IDP_URL_PROD: env(
        'HACIENDA_IDP_URL_PROD',
        `${sandboxUrl}/auth/realms/rut/protocol/openid-connect/token`,
      ),
      HACIENDA_RECEPCION_URL_PROD: env('HACIENDA_RECEPCION_URL_PROD', `${sandboxUrl}/recepcion/v1`),
      HACIENDA_PUBLIC_API_URL: env('HACIENDA_PUBLIC_API_URL', sandboxUrl),
      HACIENDA_DATA_DIR: env('HACIENDA_DATA_DIR', join(root, '..', 'shared', 'hacienda', 'cabys')),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: env('WEBHOOK_ALLOW_PRIVATE_TARGETS', 'true'),
      // A tenant may point its e-mail at a local SMTP server (the catcher, or one of its own) in development.
      MAIL_ALLOW_PRIVATE_HOSTS: env('MAIL_ALLOW_PRIVATE_HOSTS', 'true'),
      ...(useMailCatcher ? { SMTP_URL: `smtp://${probeHost}:${mailSmtpPort}` } : {}),
      ...sandboxCa,
      DATA_DIR: env('TENANT_DATA_DIR', join(dataRoot, 'tenant-api')),
    },
  },
];

const children: ChildProcess[] = [];

// The database settings are handed to each app one by one (startApp), never the shared DATABASE_URL.
const DATABASE_SETTINGS = ['DATABASE_URL', ...Object.values(SERVICE_DATABASES).map((s) => s.setting)];

function startApp(app: AppSpec): ChildProcess {
  const main = join(root, 'apps', app.name, 'dist', 'main.js');
  // The heap the service's default manifest would give it (ADR 0031) and the image's malloc setting (ADR
  // 0045); the caller's own NODE_OPTIONS come last and win.
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    ...process.env,
    ...app.env,
    ...serviceMemoryEnv(app.name, process.env),
    // The bundle's third-party packages, found in the workspace as the image finds them beside it.
    NODE_PATH: bundleNodePath(root, process.env.NODE_PATH),
  };
  for (const name of DATABASE_SETTINGS) if (!(name in app.env)) delete env[name];
  const child = spawn(process.execPath, ['--enable-source-maps', main], {
    cwd: join(root, 'apps', app.name),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[${app.name}] `;
  const relay = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) stream.write(prefix + line + '\n');
  };
  child.stdout?.on('data', relay(process.stdout));
  child.stderr?.on('data', relay(process.stderr));
  child.on('exit', (code, signal) => {
    process.stderr.write(`${prefix}exited (${signal ?? code})\n`);
    if (!stopping) shutdown(1);
  });
  children.push(child);
  return child;
}

async function waitReady(app: AppSpec, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(
        `http://${probeHost.includes(':') ? `[${probeHost}]` : probeHost}:${app.port}/health/live`,
      );
      if (r.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

let mailCatcher: RunningMailCatcher | undefined;
let stopping = false;
function shutdown(code: number): void {
  if (stopping) return;
  stopping = true;
  void mailCatcher?.stop();
  for (const c of children) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  let alive = children.length;
  for (const c of children)
    c.once('exit', () => {
      alive -= 1;
      if (alive === 0) process.exit(code);
    });
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

async function main(): Promise<void> {
  const present = apps.filter((a) => existsSync(join(root, 'apps', a.name, 'src', 'main.ts')));
  const built = buildAppBundles(
    root,
    present.map((a) => a.name),
  );
  if (!built) {
    process.stderr.write('pnpm start: the build failed; see its output above\n');
    process.exit(1);
  }
  let databases: ReturnType<typeof serviceDatabases>;
  try {
    databases = serviceDatabases(
      process.env,
      present.map((a) => a.name),
    );
    if (process.env.DATABASE_URL) {
      const created = await ensureDerivedDatabases(process.env.DATABASE_URL, databases);
      if (created.length) process.stdout.write(`created databases: ${created.join(', ')}\n`);
    }
  } catch (err) {
    process.stderr.write(`pnpm start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  for (const d of databases) {
    const app = present.find((a) => a.name === d.service);
    if (app) app.env.DATABASE_URL = d.url;
  }
  const listening: string[] = [];
  if (useMailCatcher) {
    try {
      mailCatcher = await startMailCatcher({
        host: probeHost,
        smtpPort: Number(mailSmtpPort),
        webPort: Number(mailWebPort),
      });
    } catch (err) {
      process.stderr.write(
        `mail catcher did not start (${err instanceof Error ? err.message : String(err)}); set MAIL_CATCHER_SMTP_PORT/_WEB_PORT, or SMTP_URL to use another server\n`,
      );
      shutdown(1);
      return;
    }
    listening.push(
      `  ${'mail catcher'.padEnd(17)} ${mailCatcher.web.url}  (SMTP ${mailCatcher.smtpUrl}: the receptors' e-mails)`,
    );
  }
  for (const app of present) {
    startApp(app);
    if (!(await waitReady(app))) {
      process.stderr.write(`${app.name} did not start; see its output above\n`);
      shutdown(1);
      return;
    }
    const db = databases.find((d) => d.service === app.name);
    const where = db ? `PostgreSQL ${new URL(db.url).pathname.slice(1)}` : 'embedded database';
    listening.push(`  ${app.name.padEnd(17)} http://localhost:${app.port}  (${where})`);
  }
  const lines = [
    '',
    'Development stack is up (development keys — never use them in production):',
    ...listening,
    '',
    `  admin token for the auth-server: ${adminToken}  (AUTH_ADMIN_TOKEN)`,
  ];
  if (present.some((a) => a.name === 'tenant-api')) {
    lines.push(`  tenants are subdomains: http://<base>.localhost:${tenantPort}/api/...`);
  }
  lines.push('  docs/getting-started.md walks through a first invoice.', '');
  process.stdout.write(lines.join('\n') + '\n');
}

void main();
