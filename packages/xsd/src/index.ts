// XSD validation of XML that came from outside (a supplier's comprobante, a MensajeReceptor), with xmllint
// (libxml2) in a child process: the schema parser of record for Hacienda's XSDs in this repository. Safe
// for untrusted input: any DTD (<!DOCTYPE, <!ENTITY) is refused before xmllint sees the bytes, so no
// entity is ever expanded (XML bombs, external entities); --nonet forbids network access; input size,
// output size and run time are bounded, and so are the xmllint processes at once. Callers get xmllint's
// complaints as lines, or `undefined` when the XSD directory or xmllint is missing (the caller decides
// whether that is fatal).
//
// Under load, validations waiting for the same schema share one xmllint run (docs/decisions/0029): a spawn
// from a large Node process and a schema compile cost more than validating a small document, and xmllint
// judges several files in one run, naming each. The documents wait in a private temp directory (0700,
// files 0600 with random names, removed after the run; the directory, with a derived schema, is removed
// whenever nothing runs or waits). A validation that finds a free turn runs at once.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { ScratchDir } from './scratch-dir';
import { type XmllintRun, runXmllint } from './xmllint-run';

export interface XsdValidatorOptions {
  /** Directory of the official XSDs (HACIENDA_XSD_DIR). */
  xsdDir: string | undefined;
  /** Largest accepted document in bytes (default 2 MiB). */
  maxBytes?: number;
  /** Kill an xmllint run after this long (default 20 s). */
  timeoutMs?: number;
  /**
   * xmllint processes at once (default: the cores); more validations wait their turn. Each process compiles
   * the schema again, so running more than the cores only adds memory and context switches: unbounded, a
   * burst of 50 documents/s took the sandbox's process tree to 839 MB and the load average to 25.
   */
  maxConcurrent?: number;
  /**
   * Derives the schema actually used from the official text (e.g. code lists Hacienda announced but has
   * not published yet). The derived text is computed once and written to the private temp directory while
   * validations run (never into the repository, and the official files are never edited); relative imports
   * must be made absolute by it.
   */
  extendSchema?: (xsdText: string, xsdDir: string) => string;
  /** Where the private directory is made (default: the system's temp directory). */
  tmpDir?: string;
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
  /** xmllint processes running now and documents waiting for one. */
  load(): { running: number; waiting: number };
  /** Resolves once nothing runs or waits (the private temp directory is then gone). */
  close(): Promise<void>;
}

/** A DTD in the document: refused everywhere we read untrusted XML. */
export function containsDtd(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

/** Documents per shared run, and their bytes together (a larger document runs alone). */
const MAX_BATCH = 32;
const MAX_BATCH_BYTES = 2 * 1024 * 1024;
/** xmllint's exit code when the schema does not compile: no document was looked at. */
const SCHEMA_FAILED = 5;

let xmllintPresent: Promise<boolean> | undefined;

function hasXmllint(): Promise<boolean> {
  xmllintPresent ??= new Promise((resolve) => execFile('xmllint', ['--version'], (err) => resolve(!err)));
  return xmllintPresent;
}

interface Pending {
  xml: string;
  bytes: number;
  xsdFile: string;
  /** A shared run could not judge it (a timeout, a flood of output): it runs alone. */
  alone: boolean;
  resolve: (outcome: XsdOutcome) => void;
  reject: (err: Error) => void;
}

function rejectAll(batch: Pending[], err: Error): void {
  for (const p of batch) p.reject(err);
}

/** The outcome of one document of a run, or `undefined` when the run cannot tell. */
function judge(run: XmllintRun, path: string, alone: boolean): XsdOutcome | undefined {
  const { verdict, errors } = run.report.files.get(path)!;
  if (verdict === 'validates') return { valid: true };
  if (verdict === 'fails' && errors.length) return { valid: false, errors };
  // A document that is not well-formed gets complaints and no verdict line; trusted only from a run that
  // ended by itself, and from a run of its own even when its output was cut.
  const exited = !run.killed && run.code !== null;
  if (errors.length && exited && (alone || !run.truncated)) return { valid: false, errors };
  return undefined;
}

export function createXsdValidator(options: XsdValidatorOptions): XsdValidator {
  const { xsdDir } = options;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxConcurrent = Math.max(1, options.maxConcurrent ?? availableParallelism());
  const available = !!xsdDir && existsSync(xsdDir);
  const scratch = new ScratchDir(options.tmpDir);
  const derived = new Map<string, { text: string; path?: string }>();
  const queue: Pending[] = [];
  let running = 0;
  let idle: Array<() => void> = [];

  /** The schema file xmllint compiles: the official one, or the derived text written once. */
  const schemaPath = (xsdFile: string, dir: string): string => {
    const official = join(xsdDir!, xsdFile);
    if (!options.extendSchema) return official;
    let schema = derived.get(xsdFile);
    if (!schema) {
      schema = { text: options.extendSchema(readFileSync(official, 'utf8'), xsdDir!) };
      derived.set(xsdFile, schema);
    }
    if (!schema.path || dirname(schema.path) !== dir || !existsSync(schema.path)) {
      const path = scratch.file(dir, '.xsd');
      writeFileSync(path, schema.text, { mode: 0o600, flag: 'wx' });
      schema.path = path;
    }
    return schema.path;
  };

  /** One xmllint run over the batch: what to tell each document, and who must run again alone. */
  const runBatch = async (batch: Pending[]): Promise<{ settle: () => void; retry: Pending[] }> => {
    const paths: string[] = [];
    let run: XmllintRun | undefined;
    let failure: Error | undefined;
    try {
      const { dir } = scratch.path();
      const schema = schemaPath(batch[0]!.xsdFile, dir);
      for (const _ of batch) paths.push(scratch.file(dir, '.xml'));
      await Promise.all(batch.map((p, i) => writeFile(paths[i]!, p.xml, { mode: 0o600, flag: 'wx' })));
      run = await runXmllint(schema, paths, timeoutMs);
    } catch (err) {
      failure = err as Error;
    }
    await Promise.all(paths.map((path) => rm(path, { force: true }).catch(() => {})));
    if (!run || run.code === SCHEMA_FAILED) {
      const other = run?.report.other ?? [];
      const said = other.find((l) => /error/i.test(l)) ?? other[0];
      const err = failure ?? new Error(`xmllint could not compile the schema${said ? `: ${said}` : ''}`);
      return { settle: () => rejectAll(batch, err), retry: [] };
    }
    const done = run;
    const alone = batch.length === 1;
    const outcomes = batch.map((_, i) => judge(done, paths[i]!, alone));
    const retry = alone ? [] : batch.filter((_, i) => !outcomes[i]).map((p) => ({ ...p, alone: true }));
    const settle = () => {
      for (const [i, p] of batch.entries()) {
        const outcome = outcomes[i];
        if (outcome) p.resolve(outcome);
        else if (!alone) continue;
        else if (done.killed) p.reject(new Error('xmllint timed out'));
        else {
          const said = done.report.other[0];
          p.reject(new Error(`xmllint failed with exit code ${done.code}${said ? `: ${said}` : ''}`));
        }
      }
    };
    return { settle, retry };
  };

  /** Hands free turns to the oldest waiting document and the others waiting for the same schema. */
  const pump = (): void => {
    while (running < maxConcurrent && queue.length) {
      const head = queue.shift()!;
      const batch = [head];
      let bytes = head.bytes;
      for (let i = 0; !head.alone && i < queue.length && batch.length < MAX_BATCH; ) {
        const p = queue[i]!;
        if (!p.alone && p.xsdFile === head.xsdFile && bytes + p.bytes <= MAX_BATCH_BYTES) {
          batch.push(p);
          bytes += p.bytes;
          queue.splice(i, 1);
        } else i += 1;
      }
      running += 1;
      void runBatch(batch)
        .catch((err: Error) => ({ settle: () => rejectAll(batch, err), retry: [] }))
        .then(({ settle, retry }) => {
          running -= 1;
          // They have waited already: ahead of the queue, one run each, so a slow document delays only
          // itself.
          queue.unshift(...retry);
          const idleNow = running === 0 && !queue.length;
          // Nothing stays on disk between busy spells, whatever ends the process later (a test runner's
          // worker, a SIGKILL); writing the derived schema again costs far less than the spawn it serves.
          // Removed before anyone hears an outcome, so what they see next is the state at rest.
          if (idleNow) scratch.remove();
          settle();
          pump();
          if (idleNow) {
            for (const resolve of idle) resolve();
            idle = [];
          }
        });
    }
  };

  return {
    available,
    load: () => ({ running, waiting: queue.length }),
    async close() {
      while (running > 0 || queue.length) await new Promise<void>((resolve) => idle.push(resolve));
      scratch.remove();
    },
    async validate(xml, xsdFile) {
      const bytes = Buffer.byteLength(xml, 'utf8');
      if (bytes > maxBytes) {
        const refused = `the document is larger than ${maxBytes} bytes`;
        return { valid: false, refused, errors: [refused] };
      }
      if (containsDtd(xml)) {
        const refused = 'the document carries a DTD (<!DOCTYPE or <!ENTITY), which is never accepted';
        return { valid: false, refused, errors: [refused] };
      }
      if (!xsdDir || !available || !/^[\w.-]+\.xsd$/.test(xsdFile)) return undefined;
      if (!existsSync(join(xsdDir, xsdFile)) || !(await hasXmllint())) return undefined;
      return new Promise<XsdOutcome>((resolve, reject) => {
        queue.push({ xml, bytes, xsdFile, alone: false, resolve, reject });
        pump();
      });
    },
  };
}
