// The shared security table on the three lookup routes: every bad token is refused with 401 before any
// lookup runs.
import { createCabysIndex, createCabysSearch } from '@cr/cabys';
import { describeSecurityTable } from './support/security-cases';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp({
    cabys: createCabysSearch({
      index: createCabysIndex([
        { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
      ]),
    }),
  });
});
afterAll(() => ctx.close());

describeSecurityTable('POST /api/hacienda/cabys', () => ctx, {
  method: 'post',
  path: '/api/hacienda/cabys',
  body: { name: 'jugo' },
});
describeSecurityTable('POST /api/hacienda/exoneracion', () => ctx, {
  method: 'post',
  path: '/api/hacienda/exoneracion',
  body: { exoneracion: 'AL-00020402-24' },
});
describeSecurityTable('POST /api/hacienda/contribuyente', () => ctx, {
  method: 'post',
  path: '/api/hacienda/contribuyente',
  body: { identificacion: '3101123456' },
});
