// Reads the BCCR "Catálogo de bienes y servicios" spreadsheet. Its layout: a title row, then a header row
// `Categoría 1 | Descripción (categoría 1) | … | Categoría 9 | Descripción (categoría 9) | Impuesto |
// Nota explicativa 1. Incluye | Nota explicativa 2. Excluye`, then one row per 13-digit code (the deepest
// "Categoría N" column). The header row is found by its text, not its position, so an edition with another
// number of levels or an extra title row still reads.
import type ExcelJS from 'exceljs';
import {
  type CabysEntry,
  CABYS_CODE,
  CabysImportError,
  checkEntries,
  fractionToPercent,
  IssueList,
} from './catalogue';
import { foldText } from './normalize';

const HEADER_SCAN_ROWS = 10;

interface Layout {
  headerRow: number;
  codeCol: number;
  descCol: number;
  taxCol: number;
  categoryDescCols: number[];
}

function headerKey(value: string): string {
  return foldText(value).replace(/\s+/g, ' ').trim();
}

/** The text of a cell whatever exceljs made of it (string, number, rich text, formula result, hyperlink). */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('text' in value && typeof value.text === 'string') return value.text;
  if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
  return '';
}

function findLayout(sheet: ExcelJS.Worksheet): Layout | undefined {
  const last = Math.min(sheet.rowCount, HEADER_SCAN_ROWS);
  for (let r = 1; r <= last; r++) {
    const cols = new Map<string, number>();
    sheet.getRow(r).eachCell((cell, col) => {
      const key = headerKey(cellText(cell.value));
      if (key && !cols.has(key)) cols.set(key, col);
    });
    const taxCol = cols.get('impuesto');
    let level = 0;
    for (let n = 1; n <= 20; n++) {
      if (cols.has(`categoria ${n}`) && cols.has(`descripcion (categoria ${n})`)) level = n;
    }
    if (taxCol === undefined || level === 0) continue;
    const categoryDescCols: number[] = [];
    for (let n = 1; n < level; n++) categoryDescCols.push(cols.get(`descripcion (categoria ${n})`) as number);
    return {
      headerRow: r,
      codeCol: cols.get(`categoria ${level}`) as number,
      descCol: cols.get(`descripcion (categoria ${level})`) as number,
      taxCol,
      categoryDescCols,
    };
  }
  return undefined;
}

/** The code cell: a 13-digit string, or a number that lost its leading zeros (0111100000100 → 111100000100). */
function readCode(value: ExcelJS.CellValue): string {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0)
    return String(value).padStart(13, '0');
  return cellText(value).trim();
}

/**
 * The tax cell as a percentage. The spreadsheet stores a fraction formatted as a percentage (0.13 → "13%")
 * and the word "Exento" for exempt goods; text such as "13%", "13" or "0,13" is accepted too.
 */
export function readTaxPercent(value: ExcelJS.CellValue): number | undefined {
  let n: number;
  if (typeof value === 'number') n = value;
  else {
    const text = foldText(cellText(value)).trim();
    if (text === '') return undefined;
    if (text === 'exento' || text === 'exenta') return 0;
    const m = /^([0-9]+(?:[.,][0-9]+)?)\s*(%?)$/.exec(text);
    if (!m) return undefined;
    n = Number((m[1] as string).replace(',', '.'));
    if (m[2] === '%') return n <= 100 ? Math.round(n * 100) / 100 : undefined;
  }
  if (!Number.isFinite(n) || n < 0 || n > 100) return undefined;
  return n <= 1 ? fractionToPercent(n) : Math.round(n * 100) / 100;
}

/**
 * exceljs, loaded on the first spreadsheet read rather than when this module is imported: the tenant-api
 * imports the package at start and, given cabys.json, never reads a spreadsheet, while loading exceljs and
 * its dependencies (jszip, saxes, bluebird…) held 6 MB of its heap and about 7 MB of its resident memory
 * at rest (docs/performance.md, soak section).
 */
function loadExcelJs(): typeof ExcelJS {
  return require('exceljs') as typeof ExcelJS;
}

/** Parses the xlsx bytes; throws `CabysImportError` naming the sheet row and column of each problem (first ten). */
export async function parseCabysXlsx(bytes: Buffer | Uint8Array): Promise<CabysEntry[]> {
  const workbook = new (loadExcelJs().Workbook)();
  try {
    // exceljs types want its own Buffer flavour; the bytes are the same.
    await workbook.xlsx.load(Buffer.from(bytes) as unknown as ExcelJS.Buffer);
  } catch (err) {
    throw new CabysImportError(`not a readable xlsx file (${(err as Error).message})`);
  }
  for (const sheet of workbook.worksheets) {
    const layout = findLayout(sheet);
    if (!layout) continue;
    const issues = new IssueList();
    const entries: CabysEntry[] = [];
    for (let r = layout.headerRow + 1; r <= sheet.rowCount && !issues.full; r++) {
      const row = sheet.getRow(r);
      const code = readCode(row.getCell(layout.codeCol).value);
      if (code === '') continue; // blank or spacer row
      const where = `sheet "${sheet.name}" row ${r}`;
      const descripcion = cellText(row.getCell(layout.descCol).value).trim();
      const impuesto = readTaxPercent(row.getCell(layout.taxCol).value);
      let ok = true;
      if (!CABYS_CODE.test(code)) {
        issues.add(`${where}: code "${code.slice(0, 40)}" is not 13 digits`);
        ok = false;
      }
      if (descripcion === '') {
        issues.add(`${where}: description is empty`);
        ok = false;
      }
      if (impuesto === undefined) {
        const shown = cellText(row.getCell(layout.taxCol).value).slice(0, 40);
        issues.add(`${where}: Impuesto "${shown}" is not a rate (e.g. 13%, 0.13 or Exento)`);
        ok = false;
      }
      if (!ok) continue;
      const categorias = layout.categoryDescCols
        .map((c) => cellText(row.getCell(c).value).trim())
        .filter((t) => t !== '');
      entries.push({ codigo: code, descripcion, impuesto: impuesto as number, categorias });
    }
    checkEntries(entries, 'code', issues);
    if (issues.items.length) throw new CabysImportError('invalid CABYS spreadsheet', issues.items);
    return entries;
  }
  throw new CabysImportError(
    'no sheet has the BCCR CABYS header row (Categoría 1…9, Descripción (categoría 9), Impuesto)',
  );
}
