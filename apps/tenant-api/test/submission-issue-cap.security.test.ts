// A body within BODY_LIMIT that the contract accepts can still hold thousands of problems only the engine
// finds. The answer lists the first MAX_LISTED_ISSUES with a count of the rest, as the contract's own 400s
// do: before, 9 lines of 1,000 taxes each answered 4.6 MB (27,018 details, a 2 MB message, logged too).
import { MAX_LISTED_ISSUES } from '@cr/contracts';
import { line } from '@cr/hacienda-xml/src/testing/mothers';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false });
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
});
afterAll(() => ctx.close());

describe('POST /api/enviar/items: many engine issues', () => {
  it('when 600 lines each break an engine rule, then 400 lists the first 50 and counts the rest, and the log line stays small', async () => {
    // Every line numbered 1: each is valid for the contract, 599 are not consecutive for the engine.
    const body = documentBody('invoice', 900, {
      detalleServicio: Array.from({ length: 600 }, () => line(1)),
    });
    const res = await post(ctx, 'acme', '/api/enviar/items', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.details).toHaveLength(MAX_LISTED_ISSUES);
    expect(res.body.details[0]).toMatchObject({ path: 'detalleServicio[1].numeroLinea' });
    expect(res.body.message).toMatch(/^detalleServicio\[1\]\.numeroLinea: must be 2 /);
    expect(res.body.message).toMatch(/; … and 549 more$/);
    expect(res.body.message.length).toBeLessThan(8_000);
    expect(res.text.length).toBeLessThan(16_000);
    const refusals = ctx.log.lines.filter((l) => l.includes('request refused'));
    expect(refusals.length).toBeGreaterThan(0);
    for (const l of refusals) expect(l.length).toBeLessThan(16_000);
    const stored = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
    expect(stored.rows[0]!.n).toBe(0);
  });
});
