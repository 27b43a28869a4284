// Test-only: the official XSDs and the xmllint / xmlsec1 command-line tools. Missing tools or XSDs make
// the tests that need them skip with a message, except under CI=true where they fail.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { COMPROBANTE_KINDS } from '../comprobante-kinds';
import { extendXsdText } from '../xsd-extension';

const REPO_ROOT = path.resolve(__dirname, '../../../..');
export const XSD_DIR = process.env.HACIENDA_XSD_DIR ?? path.resolve(REPO_ROOT, '../shared/hacienda/xsd');
export const SAMPLES_DIR = path.resolve(XSD_DIR, '../samples');
/** The official XSD file of each tipoDoc, for the golden suites. */
export const XSD_BY_TIPO: Record<string, string> = Object.fromEntries(
  Object.values(COMPROBANTE_KINDS).map((k) => [k.tipo, k.xsd]),
);

function hasTool(name: string): boolean {
  return spawnSync('which', [name]).status === 0;
}

export interface ToolAvailability {
  ok: boolean;
  reason?: string;
}

export function checkTools(tools: string[], needXsd = true): ToolAvailability {
  const missing = tools.filter((t) => !hasTool(t));
  if (needXsd && !existsSync(path.join(XSD_DIR, 'FacturaElectronica_V4.4.xsd')))
    missing.push(`XSDs in ${XSD_DIR}`);
  if (missing.length === 0) return { ok: true };
  const reason = `missing ${missing.join(', ')}`;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${reason}`);
  console.warn(`skipping: ${reason}`);
  return { ok: false, reason };
}

function withTempFile<T>(content: string, fn: (file: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'hacienda-xml-'));
  const file = path.join(dir, 'doc.xml');
  try {
    writeFileSync(file, content, 'utf8');
    return fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Validates against the official XSD extended in memory with the 2026-04 reference codes (xsd-extension):
 * the schema text reaches xmllint through a pipe, never a file. Returns xmllint's complaint or ''.
 */
export function xsdErrors(xml: string, xsdFile: string): string {
  const schema = extendXsdText(readFileSync(path.join(XSD_DIR, xsdFile), 'utf8'), { importDir: XSD_DIR });
  return withTempFile(xml, (file) => {
    const r = spawnSync(
      'bash',
      ['-c', 'exec xmllint --noout --nonet --schema <(exec cat) "$1"', 'xmllint', file],
      { encoding: 'utf8', input: schema },
    );
    return r.status === 0 ? '' : `${r.stderr}${r.stdout}`;
  });
}

/** Verifies with xmlsec1 (declaring the Id attributes); returns '' when the signature verifies. */
export function xmlsecErrors(xml: string): string {
  return withTempFile(xml, (file) => {
    try {
      execFileSync(
        'xmlsec1',
        [
          '--verify',
          '--insecure',
          '--id-attr:Id',
          'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
          '--id-attr:Id',
          'http://www.w3.org/2000/09/xmldsig#:KeyInfo',
          file,
        ],
        { encoding: 'utf8', stdio: 'pipe' },
      );
      return '';
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string; message: string };
      return `${e.stderr ?? ''}${e.stdout ?? ''}` || e.message;
    }
  });
}
