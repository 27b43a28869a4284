// What the metrics and logs say of the tenant-api's answers that are not a success: an /api route's refusals
// counted under its template, a 500 whose line names the tenant and the route.
import { renderMetrics } from '@cr/service-kit';
import { get, post } from './support/client';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx?.close());

const failedLines = () =>
  ctx.log.lines.map((l) => JSON.parse(l)).filter((l) => l.message === 'request failed');

describe('observability of answers that are not a success', () => {
  it('when /api/consultar/emisor answers 200, refuses with 400 and finds nothing (404), then /metrics counts all three under its template', async () => {
    expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
    expect((await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101123456 })).status).toBe(
      200,
    );
    expect((await post(ctx, 'acme', '/api/consultar/emisor', {})).status).toBe(400);
    expect((await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101999999 })).status).toBe(
      404,
    );

    const series = (await renderMetrics()).body
      .split('\n')
      .filter((l) => l.startsWith('http_requests_total{') && l.includes('consultar/emisor'));
    expect(series).toEqual([
      'http_requests_total{method="POST",route="/api/consultar/emisor",status="200"} 1',
      'http_requests_total{method="POST",route="/api/consultar/emisor",status="400"} 1',
      'http_requests_total{method="POST",route="/api/consultar/emisor",status="404"} 1',
    ]);
  });

  it('when a request fails on a missing table, then its "request failed" line names the tenant and the route template', async () => {
    ctx.log.lines.length = 0;
    await ctx.db.exec('ALTER TABLE issuers RENAME TO issuers_away');
    try {
      expect((await get(ctx, 'acme', '/api/emisores')).status).toBe(500);
    } finally {
      await ctx.db.exec('ALTER TABLE issuers_away RENAME TO issuers');
    }
    expect(failedLines()).toEqual([
      expect.objectContaining({ tenantId: 'acme', route: '/api/emisores', path: '/api/emisores' }),
    ]);
  });
});
