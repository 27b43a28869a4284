// The package as it is published: `pnpm pack` → a fresh project outside the monorepo installs the tarball
// (no registry needed: it has no dependencies) → a 10-line example compiles against it under strict
// TypeScript as ESM and as CommonJS and runs; and the SDK example of docs/getting-started.md runs from that
// project against the live stack.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Stack, invoice, startStack } from '@cr/stack';

jest.setTimeout(300_000);

const PACKAGE_DIR = join(__dirname, '..');
const REPO = join(PACKAGE_DIR, '..', '..');
const bin = (name: string) => join(REPO, 'node_modules', '.bin', name);

const ESM_EXAMPLE = `import { createClient, verifyWebhook, BadRequestError, type DocumentStatus } from '@cr-einvoice/sdk';
import { localhostFetch } from '@cr-einvoice/sdk/localhost';

const cr = createClient({ tenantUrl: 'https://acme.api.example.com', token: 'x.y.z', fetch: localhostFetch() });
const show = (d: DocumentStatus): string => \`\${d.clave} \${d.estado}\`;
export async function main(clave: string): Promise<string> {
  try { return show((await cr.documentos.consultar(clave)).data); }
  catch (err) { if (err instanceof BadRequestError) return err.details?.[0]?.path ?? err.error; throw err; }
}
console.log(typeof verifyWebhook, typeof cr.documentos.enviar, typeof main);
`;

const CJS_EXAMPLE = `import sdk = require('@cr-einvoice/sdk');

const cr = sdk.createClient({ authUrl: 'https://auth.example.com', credentials: { base: 'acme', password: 'p' } });
const err = new sdk.NotFoundError('not_found', 'clave: document not found', { status: 404, requestId: 'r1' });
const estado: sdk.Estado = 'aceptado';
console.log(typeof cr.auth.login, err.error, err.requestId, estado);
`;

let project: string;

/** Strict, Node's own module rules, no @types: only what the SDK's declarations bring. */
function tsconfig(files: string[], noEmit: boolean) {
  return {
    compilerOptions: {
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: [],
      skipLibCheck: false,
      outDir: 'out',
      noEmit,
    },
    files,
  };
}

/** Asynchronous: the stack that answers the example runs in this very process. */
function run(cmd: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, options, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

function sh(cmd: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'cr-sdk-consumer-'));
  sh(join(PACKAGE_DIR, 'node_modules', '.bin', 'tsup'), [], { cwd: PACKAGE_DIR });
  sh('pnpm', ['pack', '--pack-destination', project], { cwd: PACKAGE_DIR });
  const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
  );
  // --offline: the tarball has no dependencies, so nothing may come from a registry.
  sh('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: project });
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the packed SDK in a fresh project', () => {
  it('when it is installed, then only dist/, the README and the manifest are in it, pointing at the built files', () => {
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules', '@cr-einvoice', 'sdk', 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest.main).toBe('./dist/index.cjs');
    expect(JSON.stringify(manifest.exports)).toContain('./dist/index.mjs');
    expect(manifest.dependencies).toBeUndefined();
    const files = readdirSync(join(project, 'node_modules', '@cr-einvoice', 'sdk'));
    expect(files.sort()).toEqual(['README.md', 'dist', 'package.json']);
  });

  it('when a 10-line example is compiled as ESM and as CommonJS under strict TypeScript, then both compile and run', () => {
    writeFileSync(join(project, 'example.mts'), ESM_EXAMPLE);
    writeFileSync(join(project, 'example.cts'), CJS_EXAMPLE);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify(tsconfig(['example.mts', 'example.cts'], false)),
    );
    sh(bin('tsc'), ['-p', '.'], { cwd: project });
    expect(sh(process.execPath, ['out/example.mjs'], { cwd: project })).toBe('function function function\n');
    expect(sh(process.execPath, ['out/example.cjs'], { cwd: project })).toBe(
      'function not_found r1 aceptado\n',
    );
  });

  it('when a type is misused, then the compiler says so (the types are real, not any)', () => {
    writeFileSync(
      join(project, 'wrong.mts'),
      `import { createClient } from '@cr-einvoice/sdk';\nconst cr = createClient({ tenantUrl: 'https://x' });\nexport const n: number = (await cr.documentos.consultar('1')).data.estado;\n`,
    );
    writeFileSync(join(project, 'tsconfig.wrong.json'), JSON.stringify(tsconfig(['wrong.mts'], true)));
    let output = '';
    try {
      sh(bin('tsc'), ['-p', 'tsconfig.wrong.json'], { cwd: project });
    } catch (err) {
      output = String((err as { stdout?: string }).stdout);
    }
    expect(output).toMatch(/not assignable to type 'number'/);
  });
});

describe('the getting-started SDK example, from the fresh project, against the live stack', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    await stack.createTenant('acme', 'acme-password-123');
  }, 300_000);
  afterAll(() => stack?.stop());

  it('when docs/examples/first-invoice.mts runs, then it prints the clave as aceptado and saves the XML', async () => {
    const example = readFileSync(join(REPO, 'docs', 'examples', 'first-invoice.mts'), 'utf8');
    writeFileSync(join(project, 'first-invoice.mts'), example);
    writeFileSync(join(project, 'emisor.json'), JSON.stringify(stack.demoEmisor()));
    writeFileSync(join(project, 'factura.json'), JSON.stringify(invoice(1)));
    const out = await run(bin('tsx'), ['first-invoice.mts'], {
      cwd: project,
      env: { ...process.env, CR_AUTH_URL: stack.authUrl, CR_TENANT_URL: stack.tenantUrl('acme') },
    });
    const [clave, estado] = out.trim().split(' ');
    expect(estado).toBe('aceptado');
    expect(readFileSync(join(project, `${clave}.xml`), 'utf8')).toContain('<FacturaElectronica');
  });

  it('when docs/getting-started.md is read, then it shows the example exactly as it runs here', () => {
    const page = readFileSync(join(REPO, 'docs', 'getting-started.md'), 'utf8');
    const example = readFileSync(join(REPO, 'docs', 'examples', 'first-invoice.mts'), 'utf8');
    expect(page).toContain(example.trim());
  });
});
