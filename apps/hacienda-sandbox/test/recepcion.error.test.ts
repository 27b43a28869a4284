import { requireResource } from '@cr/testkit';
import request from 'supertest';
import { bodyFor, readSample, sampleFiles, tokenFor } from './documents';
import { type Harness, startHarness } from './sandbox-harness';

const POST = '/recepcion/v1/recepcion';

describe('recepción refusals', () => {
  let h: Harness;
  let auth: string;
  let xml: string;
  const have = sampleFiles().length === 3;
  beforeAll(async () => {
    h = await startHarness();
    auth = await tokenFor(h.app);
    xml = have ? readSample(sampleFiles().find((f) => f.startsWith('fe-')) as string) : '';
    // These documents are never processed here; park them so no verdict runs.
    await request(h.app).post('/sandbox/veredicto').send({ outcome: 'never' });
  });
  afterAll(() => h.close());

  const post = (body: unknown) =>
    request(h.app)
      .post(POST)
      .set('Authorization', auth)
      .send(body as object);

  it('when the body is not JSON, then 400 with X-Error-Cause', async () => {
    const res = await request(h.app)
      .post(POST)
      .set('Authorization', auth)
      .set('Content-Type', 'application/json')
      .send('{"clave":');
    expect(res.status).toBe(400);
    expect(res.headers['x-error-cause']).toBeTruthy();
  });

  it('when a field is missing, then 400 naming it in X-Error-Cause', async () => {
    const res = await post({
      clave: '1'.repeat(50),
      fecha: '2026-05-26T12:30:59-06:00',
      comprobanteXml: 'PA==',
    });
    expect(res.status).toBe(400);
    expect(res.headers['x-error-cause']).toContain('emisor');
    expect(res.headers['validation-exception']).toBe('true');
  });

  it('when the clave is not 50 digits, then 400 with X-Error-Cause', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    const res = await post(bodyFor(xml, { clave: '506123' }));
    expect(res.status).toBe(400);
    expect(res.headers['x-error-cause']).toMatch(/50 d/);
  });

  it('when comprobanteXml is not Base64 XML, then 400', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    const notB64 = await post(bodyFor(xml, { comprobanteXml: 'not base64 at all!' }));
    expect(notB64.status).toBe(400);
    expect(notB64.headers['x-error-cause']).toContain('Base64');
    const notXml = await post(
      bodyFor(xml, { comprobanteXml: Buffer.from('hola <mundo').toString('base64') }),
    );
    expect(notXml.status).toBe(400);
    expect(notXml.headers['x-error-cause']).toContain('XML');
  });

  it('when the body clave or emisor differ from the XML, then 400', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    const clave = await post(bodyFor(xml, { clave: '5'.repeat(50) }));
    expect(clave.status).toBe(400);
    expect(clave.headers['x-error-cause']).toContain('no coincide');
    const emisor = await post(
      bodyFor(xml, { emisor: { tipoIdentificacion: '02', numeroIdentificacion: '3101000000' } }),
    );
    expect(emisor.status).toBe(400);
    expect(emisor.headers['x-error-cause']).toContain('emisor');
  });

  it('when the same clave is sent twice, then the second gets 400 "ya fue recibido anteriormente"', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    const first = await post(bodyFor(xml));
    expect(first.status).toBe(202);
    const second = await post(bodyFor(xml));
    expect(second.status).toBe(400);
    const clave = bodyFor(xml).clave as string;
    expect(second.headers['x-error-cause']).toBe(
      `El comprobante con la Clave [${clave}] ya fue recibido anteriormente.`,
    );
  });

  it('when an unknown clave is queried, then 404 with X-Error-Cause', async () => {
    const clave = '5'.repeat(50);
    const res = await request(h.app).get(`${POST}/${clave}`).set('Authorization', auth);
    expect(res.status).toBe(404);
    expect(res.headers['x-error-cause']).toBe(`No existe el recurso con Clave = [${clave}]`);
  });

  it('when a taxpayer exceeds its recepción limit, then 429 with the rate-limit headers', async () => {
    // A clock that stands still: the windows are fixed on the clock's minute marks, and calls that
    // straddled one would start a fresh window (no 429).
    const frozen = new Date();
    const small = await startHarness({ env: { SANDBOX_RECEPCION_RATE_LIMIT: '2' }, now: () => frozen });
    try {
      const a = await tokenFor(small.app);
      const first = await request(small.app)
        .get(`${POST}/${'5'.repeat(50)}`)
        .set('Authorization', a);
      expect(first.headers['x-ratelimit-limit']).toBe('2');
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      await request(small.app)
        .get(`${POST}/${'5'.repeat(50)}`)
        .set('Authorization', a)
        .expect(404);
      await request(small.app)
        .get(`${POST}/${'5'.repeat(50)}`)
        .set('Authorization', a)
        .expect(429);
      const other = await tokenFor(small.app, 'cpf-01-0987-0456@stag.comprobanteselectronicos.go.cr');
      await request(small.app)
        .get(`${POST}/${'5'.repeat(50)}`)
        .set('Authorization', other)
        .expect(404);
    } finally {
      await small.close();
    }
  });
});
