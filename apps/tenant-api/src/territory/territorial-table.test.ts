import { haciendaDataDir, hasFile, requireResource } from '@cr/testkit';
import { join } from 'node:path';
import { TERRITORIAL_FILE, TerritorialTable } from './territorial-table';

const SMALL = `provincia,provincia_nombre,canton,canton_nombre,distrito,distrito_nombre,barrio,barrio_nombre
1,San José,01,San José,01,Carmen,02,Amón
1,San José,01,San José,01,Carmen,03,Aranjuez
`;

describe('TerritorialTable', () => {
  const table = TerritorialTable.parse(SMALL);

  it('when the codes exist, then the entry with the barrio name is found', () => {
    expect(table.find({ provincia: '1', canton: '01', distrito: '01', barrio: '02' })?.barrioNombre).toBe(
      'Amón',
    );
    expect(table.check({ provincia: '1', canton: '01', distrito: '01', barrio: '03' })).toBeUndefined();
  });

  it.each([
    [{ provincia: '2', canton: '01', distrito: '01', barrio: '02' }, 'provincia'],
    [{ provincia: '1', canton: '02', distrito: '01', barrio: '02' }, 'canton'],
    [{ provincia: '1', canton: '01', distrito: '09', barrio: '02' }, 'distrito'],
    [{ provincia: '1', canton: '01', distrito: '01', barrio: '99' }, 'barrio'],
  ])('when %o is not in the table, then the problem names %s', (codes, field) => {
    expect(table.check(codes)?.field).toBe(field);
  });

  it('when the official file is loaded, then it holds thousands of barrios', () => {
    const dir = haciendaDataDir();
    if (!requireResource('the territorial table', hasFile(join(dir, TERRITORIAL_FILE)))) return;
    const official = TerritorialTable.loadFrom(dir)!;
    expect(official.size).toBeGreaterThan(7000);
    expect(official.find({ provincia: '1', canton: '01', distrito: '01', barrio: '02' })?.barrioNombre).toBe(
      'Amón',
    );
  });
});
