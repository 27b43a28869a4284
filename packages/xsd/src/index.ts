// XSD validation of XML that came from outside (a supplier's comprobante, a MensajeReceptor), with xmllint
// (libxml2) in a child process: the schema parser of record for Hacienda's XSDs in this repository. Safe
// for untrusted input: any DTD (<!DOCTYPE, <!ENTITY) is refused before xmllint sees the bytes, so no
// entity is ever expanded (XML bombs, external entities); --nonet forbids network access; input size,
// output size and run time are bounded. Callers get xmllint's complaints as lines, or `undefined` when
// the XSD directory or xmllint is missing (the caller decides whether that is fatal).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface XsdValidatorOptions {
  /** Directory of the official XSDs (HACIENDA_XSD_DIR). */
  xsdDir: string | undefined;
  /** Largest accepted document in bytes (default 2 MiB). */
  maxBytes?: number;
  /** Kill xmllint after this long (default 20 s). */
  timeoutMs?: number;
}

export type XsdOutcome =
  | { valid: true }
  | { valid: false; errors: string[] }
  /** The input was refused before validation (DTD, size). */
  | { valid: false; refused: string; errors: string[] };

export interface XsdValidator {
  /** True when the XSD directory exists (xmllint is checked on first use). */
  readonly available: boolean;
  /** Undefined when the schema or xmllint is not available. */
  validate(xml: string, xsdFile: string): Promise<XsdOutcome | undefined>;
}

/** A DTD in the document: refused everywhere we read untrusted XML. */
export function containsDtd(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

let xmllintPresent: Promise<boolean> | undefined;

function hasXmllint(): Promise<boolean> {
  xmllintPresent ??= new Promise((resolve) => execFile('xmllint', ['--version'], (err) => resolve(!err)));
  return xmllintPresent;
}

export function createXsdValidator(options: XsdValidatorOptions): XsdValidator {
  const { xsdDir } = options;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const available = !!xsdDir && existsSync(xsdDir);
  return {
    available,
    async validate(xml, xsdFile) {
      if (Buffer.byteLength(xml, 'utf8') > maxBytes) {
        const refused = `the document is larger than ${maxBytes} bytes`;
        return { valid: false, refused, errors: [refused] };
      }
      if (containsDtd(xml)) {
        const refused = 'the document carries a DTD (<!DOCTYPE or <!ENTITY), which is never accepted';
        return { valid: false, refused, errors: [refused] };
      }
      if (!xsdDir || !available || !/^[\w.-]+\.xsd$/.test(xsdFile)) return undefined;
      const schema = join(xsdDir, xsdFile);
      if (!existsSync(schema) || !(await hasXmllint())) return undefined;
      return new Promise<XsdOutcome>((resolve, reject) => {
        const child = execFile(
          'xmllint',
          ['--noout', '--nonet', '--schema', schema, '-'],
          { maxBuffer: 1024 * 1024, timeout: timeoutMs, killSignal: 'SIGKILL' },
          (err, _stdout, stderr) => {
            if (!err) return resolve({ valid: true });
            if ((err as { killed?: boolean }).killed) return reject(new Error('xmllint timed out'));
            const errors = String(stderr)
              .split('\n')
              .map((l) => l.trim())
              .filter((l) => l && !/validates$|fails to validate$/.test(l))
              .map((l) => l.replace(/^-:/, 'line '));
            if (!errors.length) return reject(new Error(`xmllint failed: ${err.message}`));
            resolve({ valid: false, errors: errors.slice(0, 20) });
          },
        );
        child.stdin?.end(xml);
      });
    },
  };
}
