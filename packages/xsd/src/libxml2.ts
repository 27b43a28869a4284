// libxml2 in this process, compiled to WebAssembly (libxml2-wasm, ADR 0036): the same schema processor as
// xmllint, without a process per validation. The package is an ES module that instantiates its WASM with a
// top-level await, so it is loaded the native way, by the file the CommonJS resolver finds (the bundles find
// their third-party packages through NODE_PATH, which only `require.resolve` honours), once per process.
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** libxml2's report of one problem (XmlLibError.details). */
export interface Libxml2Detail {
  message: string;
  line: number;
  col: number;
}

export interface Libxml2Document {
  dispose(): void;
}

export interface Libxml2Schema {
  validate(doc: Libxml2Document): void;
  dispose(): void;
}

/** The part of libxml2-wasm this package uses. */
export interface Libxml2 {
  parse(bytes: Uint8Array, url?: string): Libxml2Document;
  compileSchema(doc: Libxml2Document): Libxml2Schema;
  /** The problems an error thrown by `parse`, `compileSchema` or `validate` carries, if it is libxml2's. */
  detailsOf(err: unknown): Libxml2Detail[] | undefined;
  /** Lets schemas import the `.xsd` files directly in `dir`, and nothing else on disk. */
  allowSchemaDir(dir: string): void;
}

interface Module {
  XmlDocument: {
    fromBuffer(source: Uint8Array, options?: { url?: string; option?: number }): Libxml2Document;
  };
  XsdValidator: { fromDoc(doc: Libxml2Document): Libxml2Schema };
  XmlLibError: new (...args: never[]) => Error & { details: Libxml2Detail[] };
  ParseOption: Record<string, number>;
  xmlRegisterInputProvider(provider: {
    match(filename: string): boolean;
    open(filename: string): number | undefined;
    read(fd: number, buf: Uint8Array): number;
    close(fd: number): boolean;
  }): boolean;
}

// A source of its own for each instance of this module: V8 reuses a compiled `new Function` of the same source,
// with the import hook of the context that first compiled it; under Jest that is the first test file's,
// torn down by the time a later file of the same worker validates ("Test environment has been torn down").
const importNative = new Function('url', `return import(url); // ${randomUUID()}`) as (
  url: string,
) => Promise<Module>;

let loading: Promise<Libxml2> | undefined;

/** The process's libxml2, instantiated on first use. */
export function loadLibxml2(): Promise<Libxml2> {
  loading ??= importNative(pathToFileURL(require.resolve('libxml2-wasm')).href)
    .then(adapt)
    .catch((err: unknown) => {
      // A failure is not kept: the next schema compilation tries again.
      loading = undefined;
      throw err;
    });
  return loading;
}

function adapt(lib: Module): Libxml2 {
  // Documents from outside: no network, no external entity (a DTD is refused before they get here anyway).
  const untrusted = (lib.ParseOption.XML_PARSE_NONET ?? 0) | (lib.ParseOption.XML_PARSE_NO_XXE ?? 0);
  const schemaDirs = new Set<string>();
  const open = new Map<number, { bytes: Buffer; at: number }>();
  let nextFd = 1;

  /** The file a schema import names, when it is an `.xsd` directly in an allowed directory (not read yet). */
  const allowedPath = (filename: string): string | undefined => {
    let path = filename;
    if (filename.startsWith('file:')) {
      try {
        path = new URL(filename).pathname;
      } catch {
        return undefined;
      }
    }
    if (!path.startsWith('/') || !path.endsWith('.xsd')) return undefined;
    const full = resolve(path);
    const dir = full.slice(0, full.lastIndexOf(sep));
    return schemaDirs.has(dir) ? full : undefined;
  };

  // One provider for the process (libxml2's input callbacks are global): it serves schema files only. A path
  // it does not match is not read at all (the WebAssembly has no file system of its own).
  lib.xmlRegisterInputProvider({
    match: (filename) => allowedPath(filename) !== undefined,
    open(filename) {
      const file = allowedPath(filename);
      let bytes: Buffer;
      try {
        if (!file || !statSync(file).isFile()) return undefined;
        bytes = readFileSync(file);
      } catch {
        return undefined;
      }
      const fd = nextFd++;
      open.set(fd, { bytes, at: 0 });
      return fd;
    },
    read(fd, buf) {
      const f = open.get(fd);
      if (!f) return -1;
      const n = Math.min(buf.byteLength, f.bytes.length - f.at);
      buf.set(f.bytes.subarray(f.at, f.at + n));
      f.at += n;
      return n;
    },
    close: (fd) => open.delete(fd),
  });

  return {
    parse: (bytes, url) =>
      lib.XmlDocument.fromBuffer(
        bytes,
        url === undefined ? { option: untrusted } : { url, option: untrusted },
      ),
    compileSchema: (doc) => lib.XsdValidator.fromDoc(doc),
    detailsOf: (err) => (err instanceof lib.XmlLibError ? err.details : undefined),
    allowSchemaDir: (dir) => void schemaDirs.add(resolve(dir)),
  };
}
