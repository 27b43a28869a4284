// Catalogue import: a spreadsheet in the BCCR layout made here with exceljs, the JSON layout, the data
// directory search, and the CLI.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haciendaDataDir, hasFile, requireResource } from '@cr/testkit';
import ExcelJS from 'exceljs';
import {
  CabysImportError,
  importCabysFile,
  loadCabysCatalogue,
  parseCabysJson,
  parseCabysXlsx,
  readCabysDir,
  serializeCabysJson,
} from '../src';
import { runCli } from '../src/cli';

const HEADER: string[] = [];
for (let n = 1; n <= 9; n++) HEADER.push(`Categoría ${n}`, `Descripción (categoría ${n})`);
HEADER.push('Impuesto', 'Nota explicativa 1. Incluye', 'Nota explicativa 2. Excluye');

type Row = { code: string | number; desc: string; tax: number | string; cats?: string[] };

/** An xlsx in the BCCR layout: sheet "Cabys", a title row, the header row, then the codes. */
async function bccrWorkbook(rows: Row[], header = HEADER): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Portada').addRow(['Catálogo de bienes y servicios']);
  const sheet = wb.addWorksheet('Cabys');
  sheet.addRow(['Catálogo de bienes y servicios (CABYS)']);
  sheet.addRow(header);
  for (const r of rows) {
    const cats = r.cats ?? [
      'Productos',
      'Alimentos',
      'Bebidas',
      'Jugos',
      'Jugos de hortalizas',
      'a',
      'b',
      'c',
    ];
    const line: ExcelJS.CellValue[] = [];
    cats.forEach((c, i) => {
      line.push(`${i + 1}`, c);
    });
    line.push(r.code, r.desc, r.tax, 'Incluye …', '');
    const added = sheet.addRow(line);
    if (typeof r.tax === 'number') added.getCell(19).numFmt = '0%';
  }
  sheet.addRow([]); // trailing blank row, as exported files have
  return Buffer.from(await wb.xlsx.writeBuffer());
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cabys-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('xlsx import (BCCR layout)', () => {
  it('when the spreadsheet has the official layout, then codes, descriptions, categories and rates are read', async () => {
    const bytes = await bccrWorkbook([
      { code: '2132100000100', desc: 'Jugo de tomate concentrado', tax: 0.13 },
      { code: 111100000100, desc: 'Trigo duro, para siembra (semillas)', tax: 0.01 }, // a number: leading 0 lost
      { code: '0161001010000', desc: ' Café cereza, orgánico ', tax: '1%' },
      { code: '9512000010900', desc: 'Pago periódico al Colegio de Abogados', tax: 'Exento' },
      { code: '3563502020301', desc: 'Paracetamol', tax: 0.02 },
    ]);
    const entries = await parseCabysXlsx(bytes);
    expect(entries.map(({ codigo, descripcion, impuesto }) => ({ codigo, descripcion, impuesto }))).toEqual([
      { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
      { codigo: '0111100000100', descripcion: 'Trigo duro, para siembra (semillas)', impuesto: 1 },
      { codigo: '0161001010000', descripcion: 'Café cereza, orgánico', impuesto: 1 },
      { codigo: '9512000010900', descripcion: 'Pago periódico al Colegio de Abogados', impuesto: 0 },
      { codigo: '3563502020301', descripcion: 'Paracetamol', impuesto: 2 },
    ]);
    expect(entries[0]?.categorias?.slice(0, 4)).toEqual(['Productos', 'Alimentos', 'Bebidas', 'Jugos']);
  });

  it('when the spreadsheet is imported, then the JSON copy loads and searches like the original', async () => {
    const source = join(dir, 'Catalogo-de-bienes-servicios.xlsx');
    await writeFile(
      source,
      await bccrWorkbook([
        { code: '2132100000100', desc: 'Jugo de tomate concentrado', tax: 0.13 },
        { code: '2132100000200', desc: 'Jugo de tomate natural', tax: 0.13 },
      ]),
    );
    const target = join(dir, 'copy.json');
    const result = await importCabysFile(source, target);
    expect(result).toMatchObject({ format: 'xlsx' });
    expect(result.entries).toHaveLength(2);
    const loaded = await loadCabysCatalogue({ files: [join(dir, 'missing.json'), target] });
    expect(loaded).toMatchObject({ file: target, format: 'json', count: 2 });
    expect(loaded?.index.search('jugo tomate')).toEqual([
      { codigo: '2132100000200', descripcion: 'Jugo de tomate natural', impuesto: 13 },
      { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
    ]);
  });

  it('when rows are wrong, then the error names the sheet row and the problem', async () => {
    const bytes = await bccrWorkbook([
      { code: '2132100000100', desc: 'Jugo de tomate concentrado', tax: 0.13 },
      { code: '21321', desc: 'Código corto', tax: 0.13 },
      { code: '2132100000300', desc: '', tax: 0.13 },
      { code: '2132100000400', desc: 'Tasa rara', tax: 'mucho' },
      { code: '2132100000100', desc: 'Repetido', tax: 0.13 },
    ]);
    const err = await parseCabysXlsx(bytes).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CabysImportError);
    const issues = (err as CabysImportError).issues;
    expect(issues).toEqual([
      'sheet "Cabys" row 4: code "21321" is not 13 digits',
      'sheet "Cabys" row 5: description is empty',
      'sheet "Cabys" row 6: Impuesto "mucho" is not a rate (e.g. 13%, 0.13 or Exento)',
      'code 1: code 2132100000100 already appears at 0',
    ]);
  });

  it('when no sheet has the CABYS header, then the file is refused with that reason', async () => {
    const bytes = await bccrWorkbook([], ['Provincia', 'Cantón', 'Distrito']);
    await expect(parseCabysXlsx(bytes)).rejects.toThrow(/no sheet has the BCCR CABYS header/);
  });

  it('when the bytes are not an xlsx, then the error says so', async () => {
    await expect(parseCabysXlsx(Buffer.from('PK\u0003\u0004 not really a zip'))).rejects.toThrow(
      /not a readable xlsx/,
    );
  });

  it('when a data directory holds another spreadsheet and the CABYS one, then the CABYS one is picked', async () => {
    await writeFile(join(dir, 'Codificacionubicacion.xlsx'), await bccrWorkbook([], ['Provincia', 'Cantón']));
    await writeFile(
      join(dir, 'z-catalogo.xlsx'),
      await bccrWorkbook([{ code: '2132100000100', desc: 'Jugo de tomate concentrado', tax: 0.13 }]),
    );
    const found = await readCabysDir(dir);
    expect(found?.path).toBe(join(dir, 'z-catalogo.xlsx'));
    expect(found?.entries).toHaveLength(1);
  });

  it('when a data directory has no catalogue, then nothing is loaded (the caller falls back)', async () => {
    expect(await loadCabysCatalogue({ dirs: [dir, join(dir, 'nope')] })).toBeUndefined();
  });
});

describe('JSON import', () => {
  it('when entries are valid, then the tax fraction becomes a percentage and back', () => {
    const entries = parseCabysJson(
      JSON.stringify([
        { id: '2132100000100', description: 'Jugo de tomate concentrado', tax_percent: 0.13 },
        { id: '0111100000100', description: 'Trigo duro', tax_percent: 0.01 },
        { id: '9512000010900', description: 'Colegio', tax_percent: 0 },
      ]),
    );
    expect(entries.map((e) => e.impuesto)).toEqual([13, 1, 0]);
    expect(JSON.parse(serializeCabysJson(entries))).toEqual([
      { id: '2132100000100', description: 'Jugo de tomate concentrado', tax_percent: 0.13 },
      { id: '0111100000100', description: 'Trigo duro', tax_percent: 0.01 },
      { id: '9512000010900', description: 'Colegio', tax_percent: 0 },
    ]);
  });

  it.each([
    ['{', /not valid JSON/],
    ['{"id":"1"}', /expected a JSON array/],
    ['[]', /holds no CABYS code/],
    ['[1]', /entry 0: is not an object/],
    ['[{"id":"123","description":"x","tax_percent":0.13}]', /entry 0: id: must be a string of 13 digits/],
    ['[{"id":"2132100000100","description":" ","tax_percent":0.13}]', /entry 0: description: must be/],
    [
      '[{"id":"2132100000100","description":"x","tax_percent":13}]',
      /entry 0: tax_percent: must be a fraction/,
    ],
  ])('when the JSON is %s, then it is refused (%s)', (text, message) => {
    expect(() => parseCabysJson(text)).toThrow(message);
  });

  it('when the real catalogue is imported, then all its codes are valid', async () => {
    const file = join(haciendaDataDir(), 'cabys.json');
    if (!requireResource(`CABYS catalogue ${file}`, hasFile(file))) return;
    const result = await importCabysFile(file);
    expect(result.entries.length).toBe(20_501);
  });
});

describe('cli import', () => {
  function capture() {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, o: (l: string) => out.push(l), e: (l: string) => err.push(l) };
  }

  it('when a valid file is given, then the count is reported and the copy written', async () => {
    const source = join(dir, 'c.xlsx');
    await writeFile(source, await bccrWorkbook([{ code: '2132100000100', desc: 'Jugo', tax: 0.13 }]));
    const c = capture();
    expect(await runCli(['import', source, '--out', join(dir, 'cabys.json')], c.o, c.e)).toBe(0);
    expect(c.out[0]).toMatch(/^1 CABYS codes read from .*c\.xlsx \(xlsx, \d+ ms\)$/);
    expect(JSON.parse(await readFile(join(dir, 'cabys.json'), 'utf8'))).toHaveLength(1);
  });

  it('when the file is invalid or missing, then exit 1 with the reason', async () => {
    await writeFile(join(dir, 'bad.json'), '[{"id":"1"}]');
    const c = capture();
    expect(await runCli(['import', join(dir, 'bad.json')], c.o, c.e)).toBe(1);
    expect(c.err[0]).toMatch(/invalid CABYS file .*bad\.json: invalid CABYS JSON: entry 0: id/);
    expect(await runCli(['import', join(dir, 'none.json')], c.o, c.e)).toBe(1);
    expect(c.err[1]).toMatch(/cannot read .*none\.json \(ENOENT\)/);
  });

  it('when the usage is wrong, then exit 2 with the usage line', async () => {
    const c = capture();
    expect(await runCli([], c.o, c.e)).toBe(2);
    expect(await runCli(['import', 'x', '--bogus'], c.o, c.e)).toBe(2);
    expect(c.err[0]).toMatch(/^usage: cabys import/);
  });
});
