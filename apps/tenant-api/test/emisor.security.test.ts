import { issuerBody } from './support/issuer-mother';
import { describeSecurityTable } from './support/security-cases';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
const body = issuerBody();

beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

describeSecurityTable('POST /api/enviar/emisor', () => ctx, {
  method: 'post',
  path: '/api/enviar/emisor',
  body,
});
describeSecurityTable('POST /api/actualizar/emisor', () => ctx, {
  method: 'post',
  path: '/api/actualizar/emisor',
  body,
});
describeSecurityTable('POST /api/consultar/emisor', () => ctx, {
  method: 'post',
  path: '/api/consultar/emisor',
  body: { identificacion: body.identificacion },
});
