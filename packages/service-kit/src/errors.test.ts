import { DatabaseUnavailableError } from './db/unavailable';
import { AppError, toHttpResponse } from './errors';

describe('toHttpResponse', () => {
  it.each([
    ['bad_request', 400],
    ['unauthorized', 401],
    ['invalid_credentials', 401],
    ['not_found', 404],
    ['conflict', 409],
    ['too_many_requests', 429],
    ['upstream_error', 502],
  ] as const)('when an AppError %s is thrown, then the status is %i', (code, status) => {
    const r = toHttpResponse(new AppError(code, 'the message'), 'req_1');
    expect(r.status).toBe(status);
    expect(r.body.error).toBe(code);
  });

  it('when the error is a client error, then its message and details are shown', () => {
    const r = toHttpResponse(
      new AppError('bad_request', 'base: is required', {
        details: [{ path: 'base', reason: 'is required' }],
      }),
      'req_1',
    );
    expect(r.body).toEqual({
      error: 'bad_request',
      message: 'base: is required',
      requestId: 'req_1',
      details: [{ path: 'base', reason: 'is required' }],
    });
  });

  it('when an unknown error is thrown, then its details are hidden', () => {
    const r = toHttpResponse(new Error('password=hunter2 at db.ts:10'));
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: 'internal_error', message: 'internal error' });
  });

  it('when the body parser fails, then it is a 400 bad_request, and 413 payload_too_large for a body over the limit', () => {
    expect(toHttpResponse({ status: 400, type: 'entity.parse.failed' }).body.error).toBe('bad_request');
    const big = toHttpResponse({ status: 413, type: 'entity.too.large', limit: 100 });
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('payload_too_large');
    expect(big.body.message).toContain('100 bytes');
  });

  it('when an AppError carries headers, then they are returned', () => {
    const r = toHttpResponse(
      new AppError('too_many_requests', 'slow down', { headers: { 'Retry-After': '5' } }),
    );
    expect(r.headers).toEqual({ 'Retry-After': '5' });
  });

  it('when the database was out of reach and nothing took effect, then it is a 503 with Retry-After; when a commit may have happened, a 500', () => {
    const lost = new Error('Connection terminated unexpectedly');
    const r = toHttpResponse(new DatabaseUnavailableError(false, lost), 'req_9');
    expect(r).toEqual({
      status: 503,
      body: {
        error: 'service_unavailable',
        message: 'the database is unavailable; retry later',
        requestId: 'req_9',
      },
      headers: { 'Retry-After': '5' },
    });
    const unknown = toHttpResponse(new DatabaseUnavailableError(true, lost));
    expect(unknown.status).toBe(500);
    expect(unknown.body).toEqual({ error: 'internal_error', message: 'internal error' });
    expect(unknown.headers).toEqual({});
  });
});
