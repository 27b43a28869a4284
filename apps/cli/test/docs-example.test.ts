// The CLI example of docs/getting-started.md, run as a user would (bash, `cr` on the PATH being the built
// CLI) against the live stack, and the page shows it exactly as it runs here.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Stack, invoice, startStack } from '@cr/stack';

jest.setTimeout(300_000);

const REPO = join(__dirname, '..', '..', '..');
const CLI = join(__dirname, '..', 'dist', 'cr.cjs');
const EXAMPLE = join(REPO, 'docs', 'examples', 'first-invoice.sh');

let stack: Stack;
let dir: string;

beforeAll(async () => {
  stack = await startStack();
  await stack.createTenant('acme', 'acme-password-123');
  dir = mkdtempSync(join(tmpdir(), 'cr-docs-'));
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('when the getting-started CLI example runs, then every step succeeds and the files are saved', async () => {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'cr'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'cr'), 0o755);
  const emisor = stack.demoEmisor();
  writeFileSync(join(dir, 'emisor.json'), JSON.stringify(emisor));
  writeFileSync(join(dir, 'llave.p12'), Buffer.from(emisor.certificadoHacienda, 'base64'));
  writeFileSync(join(dir, 'factura.json'), JSON.stringify(invoice(1)));
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', EXAMPLE],
      {
        cwd: dir,
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          HOME: dir,
          CR_CONFIG_DIR: join(dir, 'config'),
          CR_AUTH_URL: stack.authUrl,
          CR_TENANT_URL: stack.tenantUrl('acme'),
          CR_P12_PIN: stack.demo.pin,
          LANG: 'es_CR.UTF-8',
        },
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
  expect(result.stderr).not.toMatch(/Error/);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Sesión iniciada como acme');
  expect(result.stdout).toContain('Estado: aceptado');
  const clave = /Clave: (\d{50})/.exec(result.stdout)![1]!;
  expect(readFileSync(join(dir, `${clave}.xml`), 'utf8')).toContain('<FacturaElectronica');
  expect(readFileSync(join(dir, `${clave}_respuesta.xml`), 'utf8')).toContain('MensajeHacienda');
});

it('when docs/getting-started.md is read, then it shows the CLI example exactly as it runs here', () => {
  const page = readFileSync(join(REPO, 'docs', 'getting-started.md'), 'utf8');
  expect(page).toContain(readFileSync(EXAMPLE, 'utf8').trim());
});
