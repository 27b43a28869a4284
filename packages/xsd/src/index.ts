// XSD validation of XML that came from outside (a supplier's comprobante, a MensajeReceptor), with xmllint
// (libxml2) in a child process: the schema parser of record for Hacienda's XSDs in this repository. Safe
// for untrusted input: any DTD (<!DOCTYPE, <!ENTITY) is refused before xmllint sees the bytes, so no
// entity is ever expanded (XML bombs, external entities); --nonet forbids network access; input size,
// output size and run time are bounded. Callers get xmllint's complaints as lines, or `undefined` when
// the XSD directory or xmllint is missing (the caller decides whether that is fatal).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';

export interface XsdValidatorOptions {
  /** Directory of the official XSDs (HACIENDA_XSD_DIR). */
  xsdDir: string | undefined;
  /** Largest accepted document in bytes (default 2 MiB). */
  maxBytes?: number;
  /** Kill xmllint after this long (default 20 s). */
  timeoutMs?: number;
  /**
   * xmllint processes at once (default: the cores); more validations wait their turn. Each process compiles
   * the schema again, so running more than the cores only adds memory and context switches: unbounded, a
   * burst of 50 documents/s took the sandbox's process tree to 839 MB and the load average to 25.
   */
  maxConcurrent?: number;
  /**
   * Derives the schema actually used from the official text (e.g. code lists Hacienda announced but has
   * not published yet). The derived text is compiled from a pipe, never written to disk; relative imports
   * must be made absolute by it (the official files are never edited or copied).
   */
  extendSchema?: (xsdText: string, xsdDir: string) => string;
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
  /** xmllint processes running now and validations waiting for one. */
  load(): { running: number; waiting: number };
}

/** A DTD in the document: refused everywhere we read untrusted XML. */
export function containsDtd(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

let xmllintPresent: Promise<boolean> | undefined;

const derivedSchemas = new Map<string, string>();
const MAX_STDERR = 1024 * 1024;

/**
 * xmllint over the document on stdin. A derived schema reaches it through a pipe made by bash's process
 * substitution (a Node stdio pipe is a socket, which /dev/fd cannot reopen); the command line is fixed and
 * interpolates no input.
 */
function runXmllint(
  schema: string,
  xml: string,
  derived: string | undefined,
  timeoutMs: number,
): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = derived
      ? spawn('bash', ['-c', 'exec xmllint --noout --nonet --schema <(exec cat <&3) -'], {
          stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
        })
      : spawn('xmllint', ['--noout', '--nonet', '--schema', schema, '-'], {
          stdio: ['pipe', 'ignore', 'pipe'],
        });
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, killed });
    });
    // The child may exit before reading everything (a schema it cannot compile): ignore broken pipes.
    const schemaPipe = child.stdio[3] as Writable | undefined;
    schemaPipe?.on('error', () => {});
    child.stdin?.on('error', () => {});
    if (derived) schemaPipe?.end(derived);
    child.stdin?.end(xml);
  });
}

function derivedSchema(file: string, xsdDir: string, extend: (text: string, dir: string) => string): string {
  let text = derivedSchemas.get(file);
  if (text === undefined) {
    text = extend(readFileSync(file, 'utf8'), xsdDir);
    derivedSchemas.set(file, text);
  }
  return text;
}

function hasXmllint(): Promise<boolean> {
  xmllintPresent ??= new Promise((resolve) => execFile('xmllint', ['--version'], (err) => resolve(!err)));
  return xmllintPresent;
}

export function createXsdValidator(options: XsdValidatorOptions): XsdValidator {
  const { xsdDir } = options;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxConcurrent = Math.max(1, options.maxConcurrent ?? availableParallelism());
  const available = !!xsdDir && existsSync(xsdDir);
  let running = 0;
  const waiting: Array<() => void> = [];
  // A turn at xmllint, handed over first come, first served; the timeout counts from the start of the run.
  const withTurn = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running >= maxConcurrent) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
  return {
    available,
    load: () => ({ running, waiting: waiting.length }),
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
      const derived = options.extendSchema ? derivedSchema(schema, xsdDir, options.extendSchema) : undefined;
      const { code, stderr, killed } = await withTurn(() => runXmllint(schema, xml, derived, timeoutMs));
      if (code === 0) return { valid: true };
      if (killed) throw new Error('xmllint timed out');
      const errors = stderr
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !/validates$|fails to validate$/.test(l))
        .map((l) => l.replace(/^-:/, 'line '));
      if (!errors.length) throw new Error(`xmllint failed with exit code ${code}`);
      return { valid: false, errors: errors.slice(0, 20) };
    },
  };
}
