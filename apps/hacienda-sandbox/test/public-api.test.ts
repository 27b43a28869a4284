import { haciendaDataDir, hasFile, requireResource } from '@cr/testkit';
import { join } from 'node:path';
import request from 'supertest';
import { type Harness, startHarness } from './sandbox-harness';

describe('public API (/fe/ae, /fe/ex, /fe/cabys)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { HACIENDA_DATA_DIR: haciendaDataDir() } });
    await request(h.app)
      .post('/sandbox/contribuyentes')
      .send({
        identificacion: '2100042005',
        tipoIdentificacion: '02',
        nombre: 'ESTADO-MINISTERIO DE HACIENDA',
        actividades: [
          { codigo: '751101', descripcion: 'ACTIVIDADES DE LA ADMINISTRACION PUBLICA EN GENERAL' },
        ],
      })
      .expect(201);
    await request(h.app)
      .post('/sandbox/exoneraciones')
      .send({
        numeroDocumento: 'al-00460853-20',
        identificacion: '3101779527',
        porcentajeExoneracion: 13,
        fechaEmision: '2020-12-15',
        fechaVencimiento: '2030-12-15',
        cabys: ['8314300000000'],
      })
      .expect(201);
  });
  afterAll(() => h.close());

  it('when a registered taxpayer is looked up, then the §10.1 shape comes back', async () => {
    const res = await request(h.app).get('/fe/ae?identificacion=2100042005').expect(200);
    expect(res.body).toEqual({
      nombre: 'ESTADO-MINISTERIO DE HACIENDA',
      tipoIdentificacion: '02',
      regimen: { codigo: 1, descripcion: 'Régimen Tradicional' },
      situacion: {
        moroso: 'NO',
        omiso: 'NO',
        estado: 'Inscrito',
        administracionTributaria: 'Grandes Contribuyentes',
      },
      actividades: [
        {
          estado: 'A',
          tipo: 'P',
          codigo: '751101',
          descripcion: 'ACTIVIDADES DE LA ADMINISTRACION PUBLICA EN GENERAL',
        },
      ],
    });
    expect(res.headers['x-ratelimit-limit']).toBe('100');
  });

  it('when the id is unknown or invalid, then 404 or 400', async () => {
    await request(h.app).get('/fe/ae?identificacion=3101999999').expect(404);
    await request(h.app).get('/fe/ae?identificacion=3-101').expect(400);
    await request(h.app).get('/fe/ae').expect(400);
  });

  it('when an exoneration is looked up in any case, then the §10.2 shape comes back', async () => {
    const res = await request(h.app).get('/fe/ex?autorizacion=AL-00460853-20').expect(200);
    expect(res.body).toMatchObject({
      numeroDocumento: 'AL-00460853-20',
      identificacion: '3101779527',
      porcentajeExoneracion: 13,
      fechaEmision: '2020-12-15T00:00:00',
      fechaVencimiento: '2030-12-15T00:00:00',
      tipoDocumento: { codigo: '04', descripcion: 'Exenciones Dirección General de Hacienda' },
      nombreInstitucion: 'Dirección General de Hacienda',
      poseeCabys: true,
      cabys: ['8314300000000'],
    });
    await request(h.app).get('/fe/ex?autorizacion=al-00000000-00').expect(404);
    await request(h.app).get('/fe/ex?autorizacion=12345').expect(400);
    await request(h.app).get('/fe/ex').expect(400);
  });

  it('when CABYS is searched or looked up by code, then the §10.3 shapes come back', async () => {
    const byCode = await request(h.app).get('/fe/cabys?codigo=2132100000100').expect(200);
    expect(byCode.body).toEqual([
      { codigo: '2132100000100', categorias: [], descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
    ]);
    const search = await request(h.app).get('/fe/cabys?q=jugo tomate&top=2').expect(200);
    expect(search.body.cantidad).toBeLessThanOrEqual(2);
    expect(search.body.total).toBeGreaterThanOrEqual(search.body.cantidad);
    expect(search.body.cabys[0]).toMatchObject({
      codigo: expect.stringMatching(/^\d{13}$/),
      impuesto: expect.any(Number),
    });
    await request(h.app).get('/fe/cabys?codigo=123').expect(400);
    await request(h.app).get('/fe/cabys?codigo=9999999999999').expect(404);
    await request(h.app).get('/fe/cabys').expect(400);
    await request(h.app).get('/fe/cabys?q=x&top=abc').expect(400);
  });

  it('when the catalogue file is present, then its 20 000+ codes are searchable', async () => {
    if (!requireResource('CABYS catalogue', hasFile(join(haciendaDataDir(), 'cabys.json')))) return;
    await request(h.app).get('/fe/cabys?codigo=8314300000000').expect(200);
    const res = await request(h.app).get('/fe/cabys?q=trigo&top=5').expect(200);
    expect(res.body.total).toBeGreaterThan(5);
  });

  it('when CABYS is searched without accents or by a code prefix, then every match counts and they come in code order', async () => {
    const words = await request(h.app).get('/fe/cabys?q=DISENO redes&top=50').expect(200);
    const codes = words.body.cabys.map((c: { codigo: string }) => c.codigo);
    expect(codes).toContain('8314300000000');
    expect(codes).toEqual([...codes].sort());
    expect(words.body.total).toBeGreaterThanOrEqual(codes.length);
    const prefix = await request(h.app).get('/fe/cabys?q=2132100000&top=1').expect(200);
    expect(prefix.body.cantidad).toBe(1);
    expect(prefix.body.cabys[0].codigo.startsWith('2132100000')).toBe(true);
    expect(prefix.body.cabys[0].categorias).toEqual([]);
    expect(prefix.body.total).toBeGreaterThanOrEqual(1);
    const both = await request(h.app).get('/fe/cabys?q=2132 tomate&top=5000').expect(200);
    expect(both.body.total).toBe(both.body.cantidad);
    for (const c of both.body.cabys) {
      expect(c.codigo.startsWith('2132')).toBe(true);
      expect(c.descripcion.toLowerCase()).toContain('tomate');
    }
  });

  it('when a client exceeds the burst limit, then 429 with the rate-limit headers', async () => {
    // A clock that stands still: the windows are fixed on the clock's 5 s marks, and three calls that
    // straddled one would start a fresh window (no 429).
    const frozen = new Date();
    const small = await startHarness({ env: { SANDBOX_PUBLIC_RATE_LIMIT: '2' }, now: () => frozen });
    try {
      await request(small.app).get('/fe/cabys?codigo=2132100000100').expect(200);
      await request(small.app).get('/fe/cabys?codigo=2132100000100').expect(200);
      const res = await request(small.app).get('/fe/cabys?codigo=2132100000100');
      expect(res.status).toBe(429);
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      // The end of the window, in epoch seconds, on the sandbox's clock.
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(frozen.getTime() / 1000);
      expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(frozen.getTime() / 1000 + 5);
    } finally {
      await small.close();
    }
  });
});
