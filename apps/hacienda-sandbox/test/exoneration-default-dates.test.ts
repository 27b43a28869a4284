// The dates the sandbox gives an exoneration when none is sent (POST /sandbox/exoneraciones without
// fechaEmision, and the demo's): its clock's day in Costa Rica, as Hacienda dates its own. At 19:30 there the
// UTC date is already the next day, and a client writing today's date in FechaEmisionEX would not match.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { provisionDemo } from '../src/demo';
import { type Harness, startHarness } from './sandbox-harness';

jest.setTimeout(60_000);

/** 19:30 in Costa Rica on 2026-03-14: 01:30Z on the 15th. */
const EVENING = new Date('2026-03-14T19:30:00-06:00');

let clock = EVENING;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: () => clock });
});
afterAll(() => h.close());

describe('POST /sandbox/exoneraciones without fechaEmision', () => {
  it("when the sandbox's clock is 19:30 in Costa Rica, then the exoneration is issued that day, not the UTC one", async () => {
    clock = EVENING;

    const added = await request(h.app)
      .post('/sandbox/exoneraciones')
      .send({
        numeroDocumento: 'AL-00070001-26',
        identificacion: '3101779527',
        porcentajeExoneracion: 13,
        fechaVencimiento: '2028-03-14',
      })
      .expect(201);

    expect(added.body.fechaEmision).toBe('2026-03-14T00:00:00');
    const looked = await request(h.app).get('/fe/ex?autorizacion=AL-00070001-26').expect(200);
    expect(looked.body.fechaEmision).toBe('2026-03-14T00:00:00');
  });
});

describe("the demo's exoneration", () => {
  it.each([
    ['2026-03-14T19:30:00-06:00', '2026-03-14T00:00:00', '2028-03-14T00:00:00'],
    // Two years from 29 February is 1 March.
    ['2028-02-29T19:30:00-06:00', '2028-02-29T00:00:00', '2030-03-01T00:00:00'],
  ])(
    'when the demo is provisioned at %s, then it is issued on %s and expires on %s',
    async (at, issued, expires) => {
      clock = new Date(at);
      const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-demo-'));
      try {
        await provisionDemo(h.db, h.keys.ca, dataDir, clock);

        const looked = await request(h.app).get('/fe/ex?autorizacion=AL-00020402-24').expect(200);
        expect(looked.body).toMatchObject({ fechaEmision: issued, fechaVencimiento: expires });
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
