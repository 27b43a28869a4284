import { gzipSync } from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { AppError, MemoryTransport, createHttpApp, createLogger, errorHandler, jsonBody } from '../src';

function makeApp(mem = new MemoryTransport()) {
  const logger = createLogger({ service: 't', level: 'debug', transports: [mem] });
  return createHttpApp({
    logger,
    bodyLimit: 64,
    readiness: { db: () => undefined, keys: () => 'no signing key' },
    routes(app) {
      app.post('/echo', (req, res) => {
        res.json({ body: req.body });
      });
      app.get('/boom', () => {
        throw new Error('secret internals password=x');
      });
      app.get('/async-boom', async () => {
        await Promise.resolve();
        throw new AppError('conflict', 'already exists');
      });
    },
  });
}

describe('http plumbing', () => {
  it('when a route is unknown, then a JSON 404 is returned', async () => {
    const r = await request(makeApp()).get('/nope');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'not_found' });
    expect(r.body.requestId).toMatch(/^req_/);
  });

  it('when the body is not JSON, then 400 bad_request; over the limit, 413 payload_too_large', async () => {
    const bad = await request(makeApp()).post('/echo').set('content-type', 'application/json').send('{nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('bad_request');
    const big = await request(makeApp())
      .post('/echo')
      .send({ x: 'a'.repeat(200) });
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('payload_too_large');
  });

  it('when a body arrives compressed, then 400 naming Content-Encoding and it is never inflated', async () => {
    // 41 bytes of gzip that inflate to 1,000: past the 64-byte limit only once inflated.
    const bomb = gzipSync(JSON.stringify({ x: 'a'.repeat(1_000) }));
    for (const encoding of ['gzip', 'deflate', 'br', 'x-unknown']) {
      const r = await request(makeApp())
        .post('/echo')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .send(bomb);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        error: 'bad_request',
        message: 'Content-Encoding is not accepted: send the request body uncompressed',
      });
    }
    const small = gzipSync(JSON.stringify({ x: 1 }));
    const r = await request(makeApp())
      .post('/echo')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .send(small);
    expect(r.status).toBe(400);
    const plain = await request(makeApp())
      .post('/echo')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'identity')
      .send('{"x":1}');
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ body: { x: 1 } });
  });

  it("when a capped route's body holds more '{' or '[' than its cap, then 400 naming the rule before it is parsed", async () => {
    const app = express();
    app.post(
      '/upload',
      jsonBody({ limit: '1mb', containers: { max: 3, shape: 'this route takes strings' } }),
      (req, res) => {
        res.json({ body: req.body });
      },
    );
    app.use(
      errorHandler(createLogger({ service: 't', level: 'error', transports: [new MemoryTransport()] })),
    );
    const post = (text: string) =>
      request(app).post('/upload').set('Content-Type', 'application/json').send(text);
    // At the cap: parsed. The count is of bytes, so one inside a string counts too.
    const atCap = await post('{"a": [[]], "b": "x"}');
    expect(atCap.status).toBe(200);
    const inString = await post('{"a": [[]], "b": "{"}');
    expect(inString.status).toBe(400);
    // Past it: refused, and the broken JSON after the fourth '[' shows the body was never parsed.
    const nested = await post(`{"a": ${'['.repeat(50_000)}`);
    expect(nested.status).toBe(400);
    expect(nested.body).toMatchObject({
      error: 'bad_request',
      message: "request body holds more than 3 '{' or '[': this route takes strings",
    });
    const large = await post(JSON.stringify({ a: 'QUJD'.repeat(100_000) }));
    expect(large.status).toBe(200);
    expect(large.body.body.a).toHaveLength(400_000);
  });

  it('when a handler throws an unknown error, then the body hides it and the log has it', async () => {
    const mem = new MemoryTransport();
    const r = await request(makeApp(mem)).get('/boom');
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      error: 'internal_error',
      message: 'internal error',
      requestId: expect.any(String),
    });
    expect(mem.text).toContain('secret internals');
    expect(mem.text).not.toContain('password=x');
  });

  it('when an async handler rejects with an AppError, then it is mapped', async () => {
    const r = await request(makeApp()).get('/async-boom');
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('already exists');
  });

  it('when a safe request id is sent, then it is echoed', async () => {
    const r = await request(makeApp()).get('/health/live').set('x-request-id', 'gateway-123456');
    expect(r.headers['x-request-id']).toBe('gateway-123456');
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('when a readiness check fails, then /health/ready is 503 naming it without its reason', async () => {
    const r = await request(makeApp()).get('/health/ready');
    expect(r.status).toBe(503);
    expect(r.body.checks).toEqual({ db: 'ok', keys: 'failing' });
    expect((await request(makeApp()).get('/health')).status).toBe(503);
  });
});
