// GET /api/descargar/{clave}/pdf and POST /api/configurar/marca through HTTP: each kind the service issues
// renders (text has the clave and the receptor, the QR decodes to the clave), both layouts, the tenant's
// logo and footer, and the refusals (bad clave or formato, unknown or foreign document, rejected document,
// a logo that is not an image, is damaged or is too big; a damaged logo stored before logos were checked whole
// is left out of the PDF).
import { latch } from '@cr/testkit';
import {
  decodeQr,
  firstPage,
  hasColour,
  inkRatio,
  makeLogo,
  pdfText,
  popplerAvailable,
} from '../../../packages/pdf/test/pdf-tools';
import { getBytes, post } from './support/client';
import { type DocumentKind, documentBody } from './support/document-mother';
import { setDocumentState } from './support/documents';
import { issuerBody } from './support/issuer-mother';
import { describeSecurityTable } from './support/security-cases';
import { TenantConcurrency } from '../src/tenancy/tenant-concurrency';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(180_000);

const tools = popplerAvailable();
const squash = (s: string) => s.replace(/\s+/g, ' ');
const isRed = (r: number, g: number, b: number) => r > 180 && g < 60 && b < 60;

let ctx: TestApp;
let n = 0;
/** The app's PDF_RENDERS_PER_TENANT gate, at 2: a test holds its slots to see the route refuse. */
const pdfRenders = new TenantConcurrency('PDF renders', 2);
beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false, pdfRenders });
  for (const tenant of ['acme', 'other']) {
    expect((await post(ctx, tenant, '/api/enviar/emisor', issuerBody())).status).toBe(200);
  }
});
afterAll(() => ctx.close());

async function submit(kind: DocumentKind, tenant = 'acme'): Promise<string> {
  const res = await post(ctx, tenant, '/api/enviar/items', documentBody(kind, ++n));
  expect(res.status).toBe(200);
  return res.body.clave;
}

function getPdf(clave: string, query = '', tenant = 'acme') {
  return getBytes(ctx, tenant, `/api/descargar/${clave}/pdf${query}`);
}

describe('GET /api/descargar/{clave}/pdf', () => {
  it.each([
    ['invoice', 'FACTURA ELECTRÓNICA', 'Pixdea SA'],
    ['creditNote', 'NOTA DE CRÉDITO ELECTRÓNICA', 'Pixdea SA'],
    ['ticket', 'TIQUETE ELECTRÓNICO', undefined],
    ['foreignTicket', 'TIQUETE ELECTRÓNICO', 'John Smith'],
  ] as const)(
    'when a %s was submitted, then its PDF names it and its QR is the clave',
    async (kind, title, receptor) => {
      const clave = await submit(kind);
      const res = await getPdf(clave);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${clave}.pdf"`);
      const pdf = res.body as Buffer;
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      if (!tools) return;
      const text = squash(pdfText(pdf));
      expect(text).toContain(clave);
      expect(text).toContain(title);
      if (receptor) expect(text).toContain(receptor);
      expect(text).toContain('Servicio de prueba 1');
      const png = firstPage(pdf);
      expect(inkRatio(png)).toBeGreaterThan(0.005);
      expect(decodeQr(png)).toBe(clave);
    },
  );

  it.each(['carta', 'tiquete'] as const)(
    'when a surtido invoice was submitted (%s), then its PDF lists each component’s CABYS and detalle under the line',
    async (formato) => {
      const clave = await submit('surtido');
      const res = await getPdf(clave, `?formato=${formato}`);
      expect(res.status).toBe(200);
      if (!tools) return;
      const pdf = res.body as Buffer;
      const text = squash(pdfText(pdf));
      expect(text).toContain('Canasta navideña');
      expect(text).toContain('Contenido de cada unidad');
      for (const [cabys, detalle] of [
        ['2149400000400', 'Mermelada de fresa 250 g'],
        ['2225102010100', 'Queso gouda'],
        ['2132100000100', 'Jugo de tomate 330 ml'],
      ]) {
        expect(text).toContain(cabys);
        expect(text).toContain(detalle);
      }
      expect(inkRatio(firstPage(pdf))).toBeGreaterThan(0.005);
    },
  );

  it.each(['carta', 'tiquete'] as const)(
    'when a consultation paid by card was submitted (%s), then its PDF deducts the IVA devuelto before the total',
    async (formato) => {
      const clave = await submit('healthByCard');
      const res = await getPdf(clave, `?formato=${formato}`);
      expect(res.status).toBe(200);
      if (!tools) return;
      const pdf = res.body as Buffer;
      const text = squash(pdfText(pdf));
      // 25 000 + 4 % (1 000) − 1 000 returned = 25 000.
      expect(text).toMatch(/Total impuesto ₡ 1 000,00 .*IVA devuelto -₡ 1 000,00 .*TOTAL ₡ 25 000,00/);
      expect(inkRatio(firstPage(pdf))).toBeGreaterThan(0.005);
    },
  );

  it('when formato is given, then that layout; the ticket is 80 mm wide', async () => {
    const clave = await submit('invoice');
    const carta = (await getPdf(clave, '?formato=carta')).body as Buffer;
    const tiquete = (await getPdf(clave, '?formato=tiquete')).body as Buffer;
    expect(carta.toString('latin1')).toMatch(/\/MediaBox \[0 0 612 792\]/);
    expect(tiquete.toString('latin1')).toMatch(/\/MediaBox \[0 0 226\.77/);
    expect((await getPdf(clave)).body).toEqual(carta);
  });

  it('when asked twice, then the same bytes', async () => {
    const clave = await submit('invoice');
    expect((await getPdf(clave)).body).toEqual((await getPdf(clave)).body);
  });

  it.each([
    ['?formato=a4', 'formato: must be one of carta, tiquete'],
    ['?format=carta', 'format: unknown query parameter'],
  ])('when the query is %s, then 400 naming it', async (query, message) => {
    const clave = await submit('invoice');
    const res = await getPdf(clave, query);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString())).toMatchObject({ error: 'bad_request', message });
  });

  it('when the clave is malformed, unknown or another tenant’s, then 400, 404, 404', async () => {
    const foreign = await submit('invoice', 'other');
    expect((await getPdf('123')).status).toBe(400);
    expect((await getPdf('5'.repeat(50))).status).toBe(404);
    const res = await getPdf(foreign);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString())).toMatchObject({
      error: 'not_found',
      message: `clave: document ${foreign} not found`,
    });
  });

  it('when the tenant already has PDF_RENDERS_PER_TENANT renders running, then 429 with Retry-After, and other tenants are served', async () => {
    const clave = await submit('invoice');
    const foreign = await submit('invoice', 'other');
    const { promise: holding, release } = latch();
    const slots = [pdfRenders.run('acme', () => holding), pdfRenders.run('acme', () => holding)];
    const refused = await getPdf(clave);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body.toString())).toMatchObject({ error: 'too_many_requests' });
    expect((await getPdf(foreign, '', 'other')).status).toBe(200);
    release();
    await Promise.all(slots);
    expect((await getPdf(clave)).status).toBe(200);
  });

  it('when the tenant’s slots are all taken, then a PDF already rendered is still answered, and a new one is not', async () => {
    const clave = await submit('invoice');
    const fresh = await submit('invoice');
    const first = await getPdf(clave);
    expect(first.status).toBe(200);
    const { promise: holding, release } = latch();
    const slots = [pdfRenders.run('acme', () => holding), pdfRenders.run('acme', () => holding)];
    // The same bytes from the shared renders: no slot needed.
    const again = await getPdf(clave);
    expect(again.status).toBe(200);
    expect(again.body.equals(first.body)).toBe(true);
    expect((await getPdf(fresh)).status).toBe(429);
    release();
    await Promise.all(slots);
    expect((await getPdf(fresh)).status).toBe(200);
  });

  it('when Hacienda rejected the document, then 409 and no PDF', async () => {
    const clave = await submit('invoice');
    const r = await ctx.db.query<{ id: string }>('SELECT id FROM documents WHERE clave = $1', [clave]);
    await setDocumentState(ctx.db, 'acme', r.rows[0]!.id, 'rechazado', null);
    const res = await getPdf(clave);
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body.toString())).toMatchObject({ error: 'conflict' });
  });
});

/** makeLogo's PNG with its IHDR or its image data overwritten (png-js checks no CRC, so neither does this). */
function patchedLogo(patch: (png: Buffer, ihdr: number, idat: number) => void): Buffer {
  const png = makeLogo();
  patch(png, png.indexOf('IHDR') + 4, png.indexOf('IDAT') + 4);
  return png;
}
const undecodableLogo = patchedLogo((png, _ihdr, idat) => png.fill(0xaa, idat, idat + 8));
const hugeLogo = patchedLogo((png, ihdr) => {
  png.writeUInt32BE(3000, ihdr);
  png.writeUInt32BE(3000, ihdr + 4);
});

describe('POST /api/configurar/marca', () => {
  const logo = makeLogo().toString('base64');

  it('when a logo and a footer are set, then the PDFs carry them, and only the tenant’s', async () => {
    const clave = await submit('invoice');
    const foreign = await submit('invoice', 'other');
    const res = await post(ctx, 'acme', '/api/configurar/marca', {
      logo,
      pieDePagina: 'Gracias por preferirnos',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      data: { logo: { tipo: 'image/png', bytes: makeLogo().length }, pieDePagina: 'Gracias por preferirnos' },
    });
    if (!tools) return;
    for (const formato of ['carta', 'tiquete']) {
      const pdf = (await getPdf(clave, `?formato=${formato}`)).body as Buffer;
      expect(squash(pdfText(pdf))).toContain('Gracias por preferirnos');
      expect(hasColour(firstPage(pdf), isRed)).toBe(true);
    }
    const theirs = (await getPdf(foreign, '', 'other')).body as Buffer;
    expect(pdfText(theirs)).not.toContain('Gracias por preferirnos');
    expect(hasColour(firstPage(theirs), isRed)).toBe(false);
  });

  it('when the body leaves the logo out, then it is removed', async () => {
    await post(ctx, 'acme', '/api/configurar/marca', { logo });
    const res = await post(ctx, 'acme', '/api/configurar/marca', { pieDePagina: 'Solo texto' });
    expect(res.body.data).toEqual({ logo: null, pieDePagina: 'Solo texto' });
    if (!tools) return;
    const pdf = (await getPdf(await submit('invoice'))).body as Buffer;
    expect(hasColour(firstPage(pdf), isRed)).toBe(false);
  });

  it.each([
    [
      'a GIF',
      { logo: Buffer.from('GIF89a0123456789').toString('base64') },
      'logo: must be a PNG or JPEG image',
    ],
    [
      'a PNG whose image data does not inflate',
      { logo: undecodableLogo.toString('base64') },
      'logo: the PNG is damaged (its image data does not inflate to its size)',
    ],
    [
      'a PNG of 3000 × 3000 pixels',
      { logo: hugeLogo.toString('base64') },
      'logo: must be at most 2 megapixels and 4096 pixels a side (got 3000 × 3000)',
    ],
    [
      'too big',
      { logo: Buffer.concat([makeLogo(), Buffer.alloc(151 * 1024)]).toString('base64') },
      'logo: must NOT have more than 204800 characters',
    ],
    ['not base64', { logo: 'not base64!' }, 'logo:'],
    ['an unknown field', { color: 'red' }, 'color'],
    ['a footer too long', { pieDePagina: 'x'.repeat(501) }, 'pieDePagina'],
  ])('when the body has %s, then 400 naming the field and nothing changes', async (_what, body, message) => {
    await post(ctx, 'acme', '/api/configurar/marca', { pieDePagina: 'Se mantiene' });
    const res = await post(ctx, 'acme', '/api/configurar/marca', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.message).toContain(message);
    const row = await ctx.db.query<{ footer: string }>(
      "SELECT footer FROM tenant_branding WHERE tenant_id = 'acme'",
    );
    expect(row.rows[0]!.footer).toBe('Se mantiene');
  });

  it('when a damaged logo was stored before logos were checked, then PDFs leave it out and the service stays up', async () => {
    // png-js would throw this logo's inflate error inside a zlib callback and end the process.
    await ctx.db.query(
      `INSERT INTO tenant_branding (tenant_id, logo, logo_type, footer, updated_at) VALUES ('acme', $1, 'image/png', 'Con logo dañado', now())
       ON CONFLICT (tenant_id) DO UPDATE SET logo = $1, logo_type = 'image/png', footer = 'Con logo dañado'`,
      [undecodableLogo],
    );
    const res = await getPdf(await submit('invoice'));
    expect(res.status).toBe(200);
    expect((res.body as Buffer).toString('latin1')).not.toMatch(/\/Subtype \/Image/);
    if (tools) expect(squash(pdfText(res.body as Buffer))).toContain('Con logo dañado');
    await post(ctx, 'acme', '/api/configurar/marca', {});
  });
});

describeSecurityTable('GET /api/descargar/{clave}/pdf', () => ctx, {
  method: 'get',
  path: `/api/descargar/${'5'.repeat(50)}/pdf`,
});
describeSecurityTable('POST /api/configurar/marca', () => ctx, {
  method: 'post',
  path: '/api/configurar/marca',
  body: { pieDePagina: 'x' },
});
