// Small helpers to call the tenant API as a tenant with a valid token.
import request from 'supertest';
import type { TestApp } from './test-app';

export function post(
  ctx: TestApp,
  tenant: string,
  path: string,
  body: unknown,
  token = ctx.forge.token(tenant),
) {
  return request(ctx.app)
    .post(path)
    .set('Host', ctx.host(tenant))
    .set('Authorization', `Bearer ${token}`)
    .send(body as object);
}
