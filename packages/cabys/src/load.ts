// Finding and reading catalogue files: one file (xlsx or JSON, told apart by content), a data directory
// (HACIENDA_DATA_DIR: cabys.json first, else a CABYS spreadsheet), and the import that keeps a validated
// copy in the JSON layout for an app to load at its next start.
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CabysEntry, CabysImportError, parseCabysJson, serializeCabysJson } from './catalogue';
import { type CabysIndex, createCabysIndex } from './search-index';
import { parseCabysXlsx } from './xlsx';

export type CabysFileFormat = 'xlsx' | 'json';

export interface CabysFile {
  path: string;
  format: CabysFileFormat;
  entries: CabysEntry[];
}

/** The file name a data directory's catalogue is looked for under, and an imported copy is written to. */
export const CABYS_JSON_NAME = 'cabys.json';

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

function isZip(bytes: Buffer): boolean {
  return ZIP_MAGIC.every((b, i) => bytes[i] === b);
}

/** Reads and validates one catalogue file; xlsx is recognised by its content (a zip), anything else is JSON. */
export async function readCabysFile(path: string): Promise<CabysFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new CabysImportError(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (isZip(bytes)) return { path, format: 'xlsx', entries: await parseCabysXlsx(bytes) };
  return { path, format: 'json', entries: parseCabysJson(bytes.toString('utf8')) };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The catalogue of a data directory: `cabys.json` when present, else the first spreadsheet with the BCCR
 * CABYS header (names mentioning cabys/bienes/servicios are tried first; other spreadsheets there, such as
 * the territorial division, are passed over). Undefined when the directory has none.
 */
export async function readCabysDir(dir: string): Promise<CabysFile | undefined> {
  const json = join(dir, CABYS_JSON_NAME);
  if (await isFile(json)) return readCabysFile(json);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  const likely = (n: string) => (/cabys|bienes|servicios/i.test(n) ? 0 : 1);
  const sheets = names
    .filter((n) => n.toLowerCase().endsWith('.xlsx') && !n.startsWith('~$'))
    .sort((a, b) => likely(a) - likely(b) || a.localeCompare(b));
  for (const name of sheets) {
    try {
      return await readCabysFile(join(dir, name));
    } catch (err) {
      if (err instanceof CabysImportError && err.message.startsWith('no sheet has the BCCR CABYS header'))
        continue;
      throw err;
    }
  }
  return undefined;
}

export interface LoadedCabysCatalogue {
  index: CabysIndex;
  file: string;
  format: CabysFileFormat;
  count: number;
  /** Time spent reading, validating and indexing. */
  loadMs: number;
}

/**
 * What an app calls at start: the first catalogue found among `files` (e.g. an imported copy under the
 * app's DATA_DIR) and `dirs` (e.g. HACIENDA_DATA_DIR), indexed. Undefined when there is none, so the
 * caller falls back to Hacienda's public API. A file that exists but is invalid throws `CabysImportError`.
 */
export async function loadCabysCatalogue(
  sources: { files?: string[]; dirs?: string[] } = {},
): Promise<LoadedCabysCatalogue | undefined> {
  const started = performance.now();
  let found: CabysFile | undefined;
  for (const f of sources.files ?? []) {
    if (await isFile(f)) {
      found = await readCabysFile(f);
      break;
    }
  }
  for (const d of sources.dirs ?? []) {
    if (found) break;
    found = await readCabysDir(d);
  }
  if (!found) return undefined;
  const index = createCabysIndex(found.entries);
  return {
    index,
    file: found.path,
    format: found.format,
    count: index.size,
    loadMs: Math.round(performance.now() - started),
  };
}

/**
 * Validates `source` (xlsx or JSON) and, when `target` is given, writes it there in the JSON layout
 * (written aside and renamed, so a reader never sees half a file). Returns what was read.
 */
export async function importCabysFile(source: string, target?: string): Promise<CabysFile> {
  const file = await readCabysFile(source);
  if (target) {
    const tmp = `${target}.${process.pid}.tmp`;
    await writeFile(tmp, serializeCabysJson(file.entries));
    await rename(tmp, target);
  }
  return file;
}
