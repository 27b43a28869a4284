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

/** GET as the tenant with its token (JSON answers; chain `.query()` for a query string). */
export function get(ctx: TestApp, tenant: string, path: string) {
  return request(ctx.app)
    .get(path)
    .set('Host', ctx.host(tenant))
    .set('Authorization', `Bearer ${ctx.forge.token(tenant)}`);
}

/** GET as the tenant, the body kept as raw bytes (downloads: XML and PDF byte for byte). */
export function getBytes(ctx: TestApp, tenant: string, path: string) {
  return request(ctx.app)
    .get(path)
    .set('Host', ctx.host(tenant))
    .set('Authorization', `Bearer ${ctx.forge.token(tenant)}`)
    .buffer(true)
    .parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
}
