// XSD validation of XML that came from outside (a supplier's comprobante, a MensajeReceptor), with libxml2
// (the schema processor of record for Hacienda's XSDs in this repository, as xmllint uses it) compiled to
// WebAssembly and run in this process (docs/decisions/0036). Each schema is compiled once per validator and
// kept; a validation parses the document and checks it against the compiled schema, synchronously, in well
// under a millisecond for an invoice. Safe for untrusted input: any DTD (<!DOCTYPE, <!ENTITY) is refused
// before libxml2 sees the bytes, so no entity is ever expanded (XML bombs, external entities); the parser
// has no network and reads no file (schemas read only the .xsd files of the XSD directory); the input size
// is bounded, and libxml2's own limits (nesting depth, text size) hold. Callers get libxml2's complaints as
// lines, or `undefined` when the schema cannot be used here: the XSD directory or the file is missing, or the
// schema does not compile (reported through `onUnavailable`, tried again after a while). The caller decides
// whether an unvalidated document is acceptable; a deployment fault is not the sender's.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Libxml2,
  type Libxml2Detail,
  type Libxml2Document,
  type Libxml2Schema,
  loadLibxml2,
} from './libxml2';

export interface XsdValidatorOptions {
  /** Directory of the official XSDs (HACIENDA_XSD_DIR). */
  xsdDir: string | undefined;
  /** Largest accepted document in bytes (default 2 MiB). */
  maxBytes?: number;
  /**
   * Derives the schema actually used from the official text (e.g. code lists Hacienda announced but has
   * not published yet). Computed and compiled once per schema file, in memory (the official files are never
   * edited); its relative imports resolve in the XSD directory.
   */
  extendSchema?: (xsdText: string, xsdDir: string) => string;
  /** Told when a schema cannot be used (libxml2 does not load, the schema does not compile). */
  onUnavailable?: (xsdFile: string, error: Error) => void;
  /** How long a schema that failed stays unavailable before it is compiled again (default 60 s). */
  retryAfterMs?: number;
}

export type XsdOutcome =
  | { valid: true }
  | { valid: false; errors: string[] }
  /** The input was refused before validation (DTD, size). */
  | { valid: false; refused: string; errors: string[] };

export interface XsdValidator {
  /** True when the XSD directory exists. */
  readonly available: boolean;
  /**
   * Undefined when the schema cannot be used here (missing, or does not compile). `maxBytes` replaces the
   * validator's bound for this document (e.g. XML this service built, whose size its own limits bound).
   */
  validate(xml: string, xsdFile: string, options?: { maxBytes?: number }): Promise<XsdOutcome | undefined>;
  /** Frees the compiled schemas; the validator compiles them again if used later. */
  close(): Promise<void>;
}

/** A DTD in the document: refused everywhere we read untrusted XML. */
export function containsDtd(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

/** Complaints kept per document: what callers show. */
export const MAX_ERRORS = 20;

/** libxml2's complaints as `line N: …` lines (its messages end with a newline of their own). */
function linesOf(details: readonly Libxml2Detail[], kind: string): string[] {
  return details
    .slice(0, MAX_ERRORS)
    .map((d) => `line ${d.line}: ${kind}: ${d.message.trim().replace(/\s*\n\s*/g, ' ')}`);
}

interface Compiled {
  schema: Libxml2Schema;
  doc: Libxml2Document;
}

/** A schema being compiled, compiled, or failed at `failedAt` (then `undefined` until it is tried again). */
interface Entry {
  compiled: Promise<Compiled | undefined>;
  failedAt?: number;
}

export function createXsdValidator(options: XsdValidatorOptions): XsdValidator {
  const { xsdDir } = options;
  const defaultMaxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const retryAfterMs = options.retryAfterMs ?? 60_000;
  const available = !!xsdDir && existsSync(xsdDir);
  /** Compiled once per schema file; one that failed is tried again after `retryAfterMs`. */
  const schemas = new Map<string, Entry>();

  const compile = async (xsdFile: string): Promise<Compiled> => {
    const lib = await loadLibxml2();
    lib.allowSchemaDir(xsdDir!);
    const official = join(xsdDir!, xsdFile);
    const text = options.extendSchema
      ? Buffer.from(options.extendSchema(readFileSync(official, 'utf8'), xsdDir!), 'utf8')
      : readFileSync(official);
    // The URL places relative imports in the XSD directory. The schema's own document is kept as long as
    // the compiled schema (libxml2 may point into it) and freed with it.
    const doc = parseSchema(lib, text, `file://${official}`);
    try {
      return { schema: lib.compileSchema(doc), doc };
    } catch (err) {
      doc.dispose();
      const said = lib.detailsOf(err)?.[0]?.message.trim() ?? (err as Error).message;
      throw new Error(`the schema ${xsdFile} does not compile: ${said}`);
    }
  };

  const schemaFor = (xsdFile: string): Promise<Compiled | undefined> => {
    const known = schemas.get(xsdFile);
    if (known && (known.failedAt === undefined || Date.now() - known.failedAt < retryAfterMs)) {
      return known.compiled;
    }
    // Only a file that is there is compiled (and then kept: a validation does not touch the disk).
    if (!existsSync(join(xsdDir!, xsdFile))) return Promise.resolve(undefined);
    const entry: Entry = {
      compiled: compile(xsdFile).catch((err: Error) => {
        entry.failedAt = Date.now();
        options.onUnavailable?.(xsdFile, err);
        return undefined;
      }),
    };
    schemas.set(xsdFile, entry);
    return entry.compiled;
  };

  return {
    available,
    async close() {
      const compiled = [...schemas.values()].map((e) => e.compiled);
      schemas.clear();
      for (const c of await Promise.all(compiled)) {
        c?.schema.dispose();
        c?.doc.dispose();
      }
    },
    async validate(xml, xsdFile, validateOptions) {
      const maxBytes = validateOptions?.maxBytes ?? defaultMaxBytes;
      // At most 3 bytes per UTF-16 unit: a string that short is within the bound without encoding it twice.
      const bytes = xml.length * 3 <= maxBytes ? undefined : Buffer.from(xml, 'utf8');
      if (bytes && bytes.length > maxBytes) {
        const refused = `the document is larger than ${maxBytes} bytes`;
        return { valid: false, refused, errors: [refused] };
      }
      if (containsDtd(xml)) {
        const refused = 'the document carries a DTD (<!DOCTYPE or <!ENTITY), which is never accepted';
        return { valid: false, refused, errors: [refused] };
      }
      if (!xsdDir || !available || !/^[\w.-]+\.xsd$/.test(xsdFile)) return undefined;
      const compiled = await schemaFor(xsdFile);
      if (!compiled) return undefined;
      const { schema } = compiled;
      // Loaded by now: the schema was compiled with it.
      const lib = await loadLibxml2();
      let doc: Libxml2Document;
      try {
        doc = lib.parse(bytes ?? Buffer.from(xml, 'utf8'));
      } catch (err) {
        const details = lib.detailsOf(err);
        if (!details?.length) throw err;
        return { valid: false, errors: linesOf(details, 'parser error') };
      }
      try {
        schema.validate(doc);
        return { valid: true };
      } catch (err) {
        const details = lib.detailsOf(err);
        if (!details?.length) throw err;
        return { valid: false, errors: linesOf(details, 'Schemas validity error') };
      } finally {
        doc.dispose();
      }
    },
  };
}

/** The schema text as a document; a schema that is not well-formed says where. */
function parseSchema(lib: Libxml2, text: Uint8Array, url: string): Libxml2Document {
  try {
    return lib.parse(text, url);
  } catch (err) {
    const d = lib.detailsOf(err)?.[0];
    throw new Error(
      `the schema ${url} is not well-formed${d ? `: line ${d.line}: ${d.message.trim()}` : ''}`,
    );
  }
}
