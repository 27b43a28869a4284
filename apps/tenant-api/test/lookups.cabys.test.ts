// POST /api/hacienda/cabys over the real catalogue in HACIENDA_DATA_DIR (the ranking itself is tested in
// @cr/cabys's relevance table), and `cabys:import` installing a copy the running service reloads.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haciendaDataDir, hasFile, requireResource } from '@cr/testkit';
import { runCabysImport } from '../src/cli/cabys-import';
import { type TenantCabys, importedCabysPath, loadTenantCabys } from '../src/lookups/cabys-catalogue';
import { post } from './support/client';
import { type TestApp, startTestApp, testPublicApi } from './support/test-app';

const present = requireResource(
  `CABYS catalogue in ${haciendaDataDir()}`,
  hasFile(join(haciendaDataDir(), 'cabys.json')),
);
const maybe = present ? describe : describe.skip;

let ctx: TestApp;
let cabys: TenantCabys;
const emptyDir = mkdtempSync(join(tmpdir(), 'tenant-cabys-'));

beforeAll(async () => {
  if (!present) return;
  cabys = await loadTenantCabys({
    dataDir: emptyDir,
    haciendaDataDir: haciendaDataDir(),
    publicApi: testPublicApi('http://127.0.0.1:9'),
    logger: (await import('@cr/service-kit')).createLogger({ service: 't', level: 'error' }),
  });
  ctx = await startTestApp({ cabys });
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  rmSync(emptyDir, { recursive: true, force: true });
});

maybe('POST /api/hacienda/cabys over the local catalogue', () => {
  it('when a product is searched, then the best match is first with codigo, descripcion and impuesto', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', { name: 'jugo de tomate' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.data[0]).toEqual({
      codigo: expect.stringMatching(/^\d{13}$/),
      descripcion: expect.stringMatching(/jugo.*tomate|tomate.*jugo/i),
      impuesto: expect.any(Number),
    });
    expect(res.body.data.length).toBeLessThanOrEqual(50);
  });

  it('when accents and case differ, then "CAFE" finds Café', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', { name: 'CAFE' });
    expect(res.status).toBe(200);
    expect(res.body.data[0].descripcion).toMatch(/café/i);
  });

  it('when a 13-digit code is given, then exactly that code', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', { name: '2132100000100' });
    expect(res.body.data).toEqual([
      { codigo: '2132100000100', descripcion: expect.any(String), impuesto: 13 },
    ]);
  });

  it('when nothing matches, then an empty list', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', { name: 'qxzqxzqxz' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it.each([
    [undefined, 50],
    [1, 1],
    [200, 200],
  ])('when limite is %s, then at most %i results', async (limite, most) => {
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', {
      name: 'servicio',
      ...(limite === undefined ? {} : { limite }),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBe(most);
  });

  it.each([
    [{}, /name: is required/],
    [{ name: '' }, /name:/],
    [{ name: '    ' }, /name: must contain a search text/],
    [{ name: 42 }, /name: must be of type string/],
    [{ name: ['cafe'] }, /name: must be of type string/],
    [{ name: 'x'.repeat(201) }, /name: must NOT have more than 200 characters/],
    [{ name: 'cafe', limite: 0 }, /limite:/],
    [{ name: 'cafe', limite: 201 }, /limite:/],
    [{ name: 'cafe', limite: '5' }, /limite: must be of type integer/],
    [{ name: 'cafe', otro: 1 }, /otro: is not an allowed field/],
  ])('when the body is %j, then 400 bad_request naming the field', async (body, message) => {
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(message) });
  });

  it('when the body is not JSON, then 400, not 500', async () => {
    const request = (await import('supertest')).default;
    const res = await request(ctx.app)
      .post('/api/hacienda/cabys')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`)
      .set('Content-Type', 'application/json')
      .send('{"name":');
    expect(res.status).toBe(400);
  });
});

maybe('pnpm cabys:import', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tenant-cabys-import-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const lines: string[] = [];
  const out = (l: string) => lines.push(l);

  it('when the file is valid, then a normalised copy is installed and a running service reloads it', async () => {
    const source = join(dataDir, 'mine.json');
    writeFileSync(
      source,
      JSON.stringify([
        { id: '9999999999901', description: 'Servicio de prueba importado', tax_percent: 0.13 },
        { id: '9999999999902', description: 'Bien de prueba importado', tax_percent: 0.01 },
      ]),
    );
    const service = await loadTenantCabys({
      dataDir,
      publicApi: testPublicApi('http://127.0.0.1:9'),
      logger: (await import('@cr/service-kit')).createLogger({ service: 't', level: 'error' }),
    });
    expect(service.source).toBe('hacienda');
    expect(service.has('9999999999901')).toBe(false);
    const code = await runCabysImport(['mine.json'], { DATA_DIR: dataDir, INIT_CWD: dataDir }, out, out);
    expect(code).toBe(0);
    expect(lines.join('\n')).toMatch(/2 CABYS codes read .*installed as .*cabys\.json/s);
    expect(importedCabysPath(dataDir)).toBe(join(dataDir, 'cabys.json'));
    await service.reload();
    expect(service.source).toBe('local');
    // The submissions' CABYS check reads the reloaded copy too (ADR 0066).
    expect(service.has('9999999999901')).toBe(true);
    expect(await service.search('importado')).toEqual([
      { codigo: '9999999999902', descripcion: 'Bien de prueba importado', impuesto: 1 },
      { codigo: '9999999999901', descripcion: 'Servicio de prueba importado', impuesto: 13 },
    ]);
  });

  it('when the file is invalid, then exit 1 naming the entry, and the installed copy is untouched', async () => {
    const bad = join(dataDir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ id: '123', description: '', tax_percent: 13 }]));
    const errors: string[] = [];
    const code = await runCabysImport([bad], { DATA_DIR: dataDir }, out, (l) => errors.push(l));
    expect(code).toBe(1);
    expect(errors.join('\n')).toMatch(/entry 0: id: must be a string of 13 digits/);
  });

  it('when no file is given, then usage and exit 2', async () => {
    const errors: string[] = [];
    expect(await runCabysImport([], { DATA_DIR: dataDir }, out, (l) => errors.push(l))).toBe(2);
    expect(errors[0]).toMatch(/usage: pnpm cabys:import/);
  });
});
