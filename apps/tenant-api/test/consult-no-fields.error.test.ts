// The consults of a tenant's own settings take no fields: a field sent there is refused, naming it, rather than
// ignored, so a client never believes it filtered the answer (fuzz audit, 2026-12-07).
import request from 'supertest';
import { post } from './support/client';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

const CONSULTS = ['/api/consultar/webhook', '/api/consultar/correo'];

describe('consults that take no fields', () => {
  it.each(CONSULTS)('when %s gets a field, then 400 naming it', async (path) => {
    const res = await post(ctx, 'acme', path, { clave: '50601' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: 'clave: is not an allowed field' });
    expect(res.body.details).toEqual([{ path: 'clave', reason: 'is not an allowed field' }]);
  });

  it.each(CONSULTS)('when %s gets a JSON array, then 400 naming the body', async (path) => {
    const res = await post(ctx, 'acme', path, ['clave']);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/^\(body\): /) });
  });

  it.each(CONSULTS)('when %s gets {} or no body at all, then it answers as before', async (path) => {
    const empty = await post(ctx, 'acme', path, {});
    const none = await request(ctx.app)
      .post(path)
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`);
    // No webhook is configured (404) and the e-mail settings are the platform's (200): both are answers.
    expect([200, 404]).toContain(empty.status);
    expect(none.status).toBe(empty.status);
    const { requestId: _a, ...emptyAnswer } = empty.body;
    const { requestId: _b, ...noneAnswer } = none.body;
    expect(noneAnswer).toEqual(emptyAnswer);
  });
});
