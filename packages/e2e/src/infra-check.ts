// Static checks of the deployment files under infra/, run by CI and .ci/run (pnpm --filter @cr/e2e check:infra):
//   - the gateway config renders and passes `nginx -t` (TLS and plain variants);
//   - the Dockerfiles lint with hadolint, when hadolint is installed (else: skipped, said so);
//   - `docker compose config` accepts compose.yaml, when `docker compose` exists (else: skipped, said so);
//   - every ${VAR} compose.yaml reads is documented in .env.example, and every Dockerfile keeps its promises
//     (non-root, HEALTHCHECK on /health/live, pnpm deploy --prod) and copies only files the repository has;
//   - every k8s Deployment has live/ready probes, resources and a non-root read-only securityContext;
//   - the bundles' banner and footer (infra/docker/tsup.config.base.ts) keep libraries' source maps unloaded
//     and the bundle's own map working, checked on a small fixture with this Node.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { MALLOC_MMAP_THRESHOLD_BYTES, SEMI_SPACE_MB } from '@cr/devstack';
import { LIBRARY_SOURCE_MAPS_OFF } from '../../../infra/docker/tsup.config.base';
import { checkGateway } from '../../../infra/gateway/check';

const INFRA = resolve(__dirname, '../../../infra');
const REPO = resolve(INFRA, '..');

interface Outcome {
  ok: boolean;
  lines: string[];
}

function hasCommand(cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return r.status === 0;
}

/** What a Dockerfile's COPY and ADD lines take from the build context (not a stage's: --from=). */
export function copySources(dockerfile: string): string[] {
  const sources: string[] = [];
  for (const line of dockerfile.replace(/\\\n/g, ' ').split('\n')) {
    const m = /^\s*(?:COPY|ADD)\s+((?:--\S+\s+)*)(.*)$/i.exec(line);
    if (!m || /--from=/.test(m[1] ?? '')) continue;
    const rest = (m[2] ?? '').trim();
    const args = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
    sources.push(...args.slice(0, -1));
  }
  return sources;
}

/**
 * Whether a COPY source is in the repository: tracked by git (a glob: at least one file matches), since a
 * file only this checkout has (an untracked .npmrc) would break every other build. Without git, the disk.
 */
function inRepository(source: string): boolean {
  const r = spawnSync('git', ['ls-files', '--', source], { cwd: REPO, encoding: 'utf8' });
  if (r.status === 0) return r.stdout.trim() !== '';
  return /[*?[]/.test(source) || existsSync(join(REPO, source));
}

export function checkDockerfiles(): Outcome {
  const lines: string[] = [];
  let ok = true;
  const dir = join(INFRA, 'docker');
  const files = readdirSync(dir).filter((f) => f.endsWith('.Dockerfile'));
  for (const app of ['auth-server', 'tenant-api', 'hacienda-sandbox']) {
    const name = `${app}.Dockerfile`;
    if (!files.includes(name)) {
      ok = false;
      lines.push(`docker: FAIL ${name} is missing`);
      continue;
    }
    const text = readFileSync(join(dir, name), 'utf8');
    const promises: Array<[string, boolean]> = [
      ['runs as a non-root user', /^USER node$/m.test(text)],
      ['has a HEALTHCHECK on /health/live', /^HEALTHCHECK[\s\S]*\/health\/live/m.test(text)],
      ['deploys production dependencies only', /pnpm --filter @cr\/[a-z-]+ --prod deploy/.test(text)],
      ['installs from the frozen lockfile', /--frozen-lockfile/.test(text)],
      ['uses no corepack', !/corepack/.test(text)],
      ['copies no secrets', !/\.(pem|p12|key)\b|SECRETS_KEY|ADMIN_TOKEN/.test(text)],
      [
        'sizes the young generation as pnpm start does (ADR 0031)',
        new RegExp(`^ENV .*NODE_OPTIONS=--max-semi-space-size=${SEMI_SPACE_MB}\\b`, 'm').test(text),
      ],
      [
        'holds the malloc mmap threshold as pnpm start does (ADR 0045)',
        new RegExp(`^ENV MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_BYTES}$`, 'm').test(text),
      ],
    ];
    for (const [what, kept] of promises) {
      if (!kept) {
        ok = false;
        lines.push(`docker: FAIL ${name} ${what}: no`);
      }
    }
    // The build context is the repository root: a source it lacks stops the build at that COPY.
    for (const source of copySources(text).filter((s) => !inRepository(s))) {
      ok = false;
      lines.push(`docker: FAIL ${name} copies ${source}, which the repository does not have`);
    }
  }
  if (ok) lines.push(`docker: ${files.length} Dockerfiles keep their promises`);
  if (hasCommand('hadolint', ['--version'])) {
    for (const f of files) {
      const r = spawnSync('hadolint', [join(dir, f)], { encoding: 'utf8' });
      if (r.status !== 0) {
        ok = false;
        lines.push(`docker: FAIL hadolint ${f}:\n${r.stdout}${r.stderr}`);
      } else lines.push(`docker: hadolint ${f} ok`);
    }
  } else {
    lines.push(
      'docker: hadolint skipped (not installed: Debian does not package it and the npm "hadolint" is only a wrapper around the binary)',
    );
  }
  return { ok, lines };
}

export function checkCompose(): Outcome {
  const lines: string[] = [];
  let ok = true;
  const compose = readFileSync(join(INFRA, 'compose.yaml'), 'utf8');
  const envExample = readFileSync(join(INFRA, '.env.example'), 'utf8');
  const documented = new Set(
    [...envExample.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1] as string),
  );
  const used = new Set([...compose.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1] as string));
  const missing = [...used].filter((v) => !documented.has(v));
  if (missing.length > 0) {
    ok = false;
    lines.push(`compose: FAIL settings used but not documented in .env.example: ${missing.join(', ')}`);
  } else lines.push(`compose: all ${used.size} settings are documented in .env.example`);
  const docs = parseAllDocuments(compose);
  const parsed = docs[0]?.toJS() as {
    services?: Record<string, { profiles?: string[]; deploy?: unknown; ports?: string[] }>;
  };
  const services = parsed.services ?? {};
  for (const s of ['gateway', 'postgres', 'auth-server', 'tenant-api', 'hacienda-sandbox']) {
    if (!services[s]) {
      ok = false;
      lines.push(`compose: FAIL service ${s} is missing`);
    }
  }
  // The gateway's admin listener (container port 8081) may only be published on the host's loopback.
  const adminPorts = (services.gateway?.ports ?? []).filter((p) => String(p).endsWith(':8081'));
  if (adminPorts.length === 0 || adminPorts.some((p) => !String(p).startsWith('127.0.0.1:'))) {
    ok = false;
    lines.push('compose: FAIL the gateway admin listener (8081) is not published on 127.0.0.1 only');
  }
  if (!services['hacienda-sandbox']?.profiles?.includes('sandbox')) {
    ok = false;
    lines.push('compose: FAIL the sandbox is not behind the `sandbox` profile');
  }
  if (hasCommand('docker', ['compose', 'version'])) {
    const r = spawnSync(
      'docker',
      [
        'compose',
        '-f',
        join(INFRA, 'compose.yaml'),
        '--env-file',
        join(INFRA, '.env.example'),
        'config',
        '-q',
      ],
      {
        encoding: 'utf8',
        // Required secrets are empty in the example; give them throwaway values for the syntax check only.
        env: {
          ...process.env,
          POSTGRES_PASSWORD: 'x',
          AUTH_DB_PASSWORD: 'x',
          TENANT_DB_PASSWORD: 'x',
          SANDBOX_DB_PASSWORD: 'x',
          AUTH_ADMIN_TOKEN: 'x'.repeat(24),
          AUTH_SECRETS_KEY: 'x',
          TENANT_SECRETS_KEY: 'x',
          PROVEEDOR_SISTEMAS: 'x',
        },
      },
    );
    if (r.status !== 0) {
      ok = false;
      lines.push(`compose: FAIL docker compose config:\n${r.stderr}`);
    } else lines.push('compose: docker compose config ok');
  } else {
    lines.push('compose: `docker compose config` skipped (docker compose is not installed here)');
  }
  return { ok, lines };
}

interface K8sContainer {
  ports?: Array<{ name?: string; containerPort?: number }>;
  livenessProbe?: { httpGet?: { path?: string } };
  readinessProbe?: { httpGet?: { path?: string } };
  resources?: { requests?: unknown; limits?: { memory?: unknown } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}

interface K8sObject {
  kind?: string;
  metadata?: { name?: string };
  spec?: {
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: { securityContext?: { runAsNonRoot?: boolean }; containers?: K8sContainer[] };
    };
    rules?: Array<{ host?: string; http?: { paths?: Array<{ path?: string }> } }>;
    podSelector?: PodSelector;
    policyTypes?: string[];
    ingress?: Array<{ ports?: Array<{ port?: number }> }>;
  };
  stringData?: Record<string, string>;
}

interface PodSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

function selects(selector: PodSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = (selector.matchExpressions ?? []).every(
    (e) => e.operator === 'In' && (e.values ?? []).includes(labels[e.key] ?? ''),
  );
  return byLabel && byExpression;
}

/** Ports of a Deployment's `metrics` containers that no NetworkPolicy lets in (the default deny drops scrapes). */
function unscrapedMetricsPorts(deployment: K8sObject, policies: K8sObject[]): number[] {
  const labels = deployment.spec?.template?.metadata?.labels ?? {};
  const ports = (deployment.spec?.template?.spec?.containers ?? [])
    .flatMap((c) => c.ports ?? [])
    .filter((p) => p.name === 'metrics' && p.containerPort !== undefined)
    .map((p) => p.containerPort as number);
  const allowed = policies
    .filter((p) => selects(p.spec?.podSelector, labels))
    .flatMap((p) => p.spec?.ingress ?? [])
    .flatMap((rule) => rule.ports ?? [])
    .map((p) => p.port);
  return ports.filter((port) => !allowed.includes(port));
}

export function checkK8s(): Outcome {
  const lines: string[] = [];
  let ok = true;
  const dir = join(INFRA, 'k8s');
  const objects: K8sObject[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, f), 'utf8'))) {
      if (doc.errors.length > 0) {
        ok = false;
        lines.push(`k8s: FAIL ${f}: ${doc.errors[0]?.message}`);
      }
      const obj = doc.toJS() as K8sObject | null;
      if (obj) objects.push(obj);
    }
  }
  const fail = (msg: string) => {
    ok = false;
    lines.push(`k8s: FAIL ${msg}`);
  };
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const name = d.metadata?.name ?? '?';
    const pod = d.spec?.template?.spec;
    if (pod?.securityContext?.runAsNonRoot !== true) fail(`${name}: runAsNonRoot is not set`);
    for (const c of pod?.containers ?? []) {
      if (c.livenessProbe?.httpGet?.path !== '/health/live')
        fail(`${name}: liveness probe not on /health/live`);
      if (c.readinessProbe?.httpGet?.path !== '/health/ready')
        fail(`${name}: readiness probe not on /health/ready`);
      if (!c.resources?.requests || !c.resources.limits?.memory) fail(`${name}: resources incomplete`);
      if (c.securityContext?.readOnlyRootFilesystem !== true) fail(`${name}: root filesystem is writable`);
      if (c.securityContext?.allowPrivilegeEscalation !== false)
        fail(`${name}: privilege escalation allowed`);
    }
  }
  const hosts = objects.filter((o) => o.kind === 'Ingress').flatMap((o) => o.spec?.rules ?? []);
  if (!hosts.some((r) => r.host?.startsWith('*.api.'))) fail('no wildcard *.api.<domain> Ingress rule');
  // The admin API must never be routed from the internet: the auth host routes an allowlist of public paths.
  for (const r of hosts.filter((h) => h.host?.startsWith('auth.'))) {
    for (const p of r.http?.paths ?? []) {
      if (p.path === '/' || p.path?.startsWith('/admin'))
        fail(`auth Ingress routes ${p.path} (exposes /admin)`);
    }
  }
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const denyAll = policies.some(
    (p) =>
      p.spec?.podSelector &&
      Object.keys(p.spec.podSelector.matchLabels ?? {}).length === 0 &&
      p.spec.policyTypes?.includes('Ingress'),
  );
  if (!denyAll) fail('no default-deny ingress NetworkPolicy');
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const blocked = unscrapedMetricsPorts(d, policies);
    if (blocked.length > 0)
      fail(`${d.metadata?.name}: no NetworkPolicy lets Prometheus reach metrics port ${blocked.join(', ')}`);
  }
  for (const s of objects.filter((o) => o.kind === 'Secret')) {
    for (const [k, v] of Object.entries(s.stringData ?? {})) {
      if (v !== 'REPLACE_ME') fail(`secret template holds a value for ${k}`);
    }
  }
  if (ok) lines.push(`k8s: ${objects.length} objects, deployments hardened and probed`);
  return { ok, lines };
}

/** An inline source map naming `source` (one mapping per line, each generated line to the same original one). */
function inlineMap(source: string, lines: number): string {
  const map = {
    version: 3,
    sources: [source],
    names: [],
    mappings: ['AAAA', ...Array(lines).fill('AACA')].join(';'),
  };
  return `//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}`;
}

/**
 * A bundle-shaped fixture: a library with its own map, required by a "bundle" wrapped in the real banner and
 * footer. Under --enable-source-maps the bundle's map must be loaded and used for its frames, the library's
 * must not be loaded; without the flag nothing is turned on.
 */
export function checkBundleSourceMaps(): Outcome {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-maps-'));
  try {
    writeFileSync(join(dir, 'lib.js'), `exports.one = () => 1;\n${inlineMap('lib.ts', 1)}\n`);
    const body = [
      "const lib = require('./lib.js');",
      "const { findSourceMap } = require('node:module');",
      'setImmediate(() => {',
      "  const stack = new Error('probe').stack.split('\\n')[1];",
      "  process.stdout.write(JSON.stringify({ own: !!findSourceMap(__filename), lib: !!findSourceMap(require.resolve('./lib.js')), enabled: process.sourceMapsEnabled, mapped: stack.includes('bundle.ts') }));",
      '});',
    ].join('\n');
    const { banner, footer } = LIBRARY_SOURCE_MAPS_OFF;
    const text = `${banner.js}\n${body}\n${footer.js}\n`;
    writeFileSync(join(dir, 'main.js'), `${text}${inlineMap('bundle.ts', text.split('\n').length)}\n`);
    const run = (flags: string[]) => {
      const r = spawnSync(process.execPath, [...flags, join(dir, 'main.js')], { encoding: 'utf8' });
      return (r.status === 0 ? JSON.parse(r.stdout) : { error: r.stderr.slice(0, 500) }) as Record<
        string,
        unknown
      >;
    };
    const on = run(['--enable-source-maps']);
    const off = run([]);
    const ok =
      on.own === true &&
      on.lib === false &&
      on.enabled === true &&
      on.mapped === true &&
      off.enabled === false;
    return {
      ok,
      lines: [
        ok
          ? "bundles: libraries' source maps stay unloaded, the bundle's own map still names its frames (ADR 0032)"
          : `bundles: FAIL source-map banner/footer: with --enable-source-maps ${JSON.stringify(on)}, without ${JSON.stringify(off)}`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const outcomes = [checkGateway(), checkDockerfiles(), checkCompose(), checkK8s(), checkBundleSourceMaps()];
  for (const o of outcomes) for (const line of o.lines) process.stdout.write(`${line}\n`);
  const ok = outcomes.every((o) => o.ok);
  process.stdout.write(ok ? 'infra checks: ok\n' : 'infra checks: FAILED\n');
  process.exit(ok ? 0 : 1);
}
