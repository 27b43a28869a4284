// XSD validation of XML that came from outside (a supplier's comprobante, a MensajeReceptor), with libxml2
// (the schema processor of record for Hacienda's XSDs in this repository, as xmllint uses it) compiled to
// WebAssembly and run in this process (docs/decisions/0036). Each schema is compiled once per validator and
// kept; a validation parses the document and checks it against the compiled schema, synchronously, in well
// under a millisecond for an invoice. Safe for untrusted input: any DTD (<!DOCTYPE, <!ENTITY) is refused
// before libxml2 sees the bytes, so no entity is ever expanded (XML bombs, external entities); the parser
// has no network and reads no file (schemas read only the .xsd files of the XSD directory); the input size
// is bounded, and libxml2's own limits (nesting depth, text size) hold. Callers get libxml2's complaints as
// lines, or `undefined` when the XSD directory or the schema is missing (the caller decides whether that is
// fatal).
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
   * edited); relative imports must be made absolute by it, into the XSD directory.
   */
  extendSchema?: (xsdText: string, xsdDir: string) => string;
}

export type XsdOutcome =
  | { valid: true }
  | { valid: false; errors: string[] }
  /** The input was refused before validation (DTD, size). */
  | { valid: false; refused: string; errors: string[] };

export interface XsdValidator {
  /** True when the XSD directory exists. */
  readonly available: boolean;
  /** Undefined when the schema is not available. Rejects when the schema itself does not compile. */
  validate(xml: string, xsdFile: string): Promise<XsdOutcome | undefined>;
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

export function createXsdValidator(options: XsdValidatorOptions): XsdValidator {
  const { xsdDir } = options;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const available = !!xsdDir && existsSync(xsdDir);
  /** Compiled once per schema file; a schema that does not compile is not tried again. */
  const schemas = new Map<string, Promise<Compiled>>();

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

  const schemaFor = (xsdFile: string): Promise<Compiled> => {
    let schema = schemas.get(xsdFile);
    if (!schema) {
      schema = compile(xsdFile);
      schemas.set(xsdFile, schema);
    }
    return schema;
  };

  return {
    available,
    async close() {
      const compiled = [...schemas.values()];
      schemas.clear();
      for (const s of await Promise.allSettled(compiled)) {
        if (s.status !== 'fulfilled') continue;
        s.value.schema.dispose();
        s.value.doc.dispose();
      }
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
      if (!existsSync(join(xsdDir, xsdFile))) return undefined;
      const { schema } = await schemaFor(xsdFile);
      const lib = await loadLibxml2();
      let doc: Libxml2Document;
      try {
        doc = lib.parse(Buffer.from(xml, 'utf8'));
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
