import { DocumentRequest, LoginRequest, MAX_LISTED_ISSUES } from '@cr/contracts';
import { refusal } from './testing/refusal';
import { parseBody } from './validate-body';

describe('parseBody', () => {
  it('when the body is valid, then returns it', () => {
    expect(parseBody(LoginRequest, { base: 'acme', password: 'x' })).toEqual({ base: 'acme', password: 'x' });
  });

  it('when no JSON body was read (none sent, or sent as text/plain), then the 400 says how to send one', () => {
    const err = refusal(() => parseBody(LoginRequest, undefined));
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
    expect(err.message).toBe('(body): must be a JSON object, sent with Content-Type: application/json');
  });

  it('when several fields are wrong, then one 400 names each of them', () => {
    const err = refusal(() => parseBody(LoginRequest, { password: 5 }));
    expect(err).toMatchObject({ code: 'bad_request', status: 400 });
    expect(err.message).toContain('base: is required');
    expect(err.message).toContain('password: must be of type string');
  });

  it('when a small body has more problems than are listed, then the message counts the rest', () => {
    const err = refusal(() =>
      parseBody(DocumentRequest, { detalleServicio: Array.from({ length: 40 }, () => ({})) }),
    );
    expect(err.details).toHaveLength(MAX_LISTED_ISSUES);
    expect(err.message).toMatch(/; … and \d+ more$/);
  });

  it('when a body has 80,000 bad items, then the 400 names its first problem in a few words', () => {
    const err = refusal(() =>
      parseBody(DocumentRequest, { detalleServicio: Array.from({ length: 80_000 }, () => ({})) }),
    );
    expect(err.message).toBe(
      'emisor: is required; … (only the first problem is listed for a body this large)',
    );
    expect(err.details).toEqual([{ path: 'emisor', reason: 'is required' }]);
  });

  it('when a string holds U+0000, then 400 naming it (PostgreSQL text cannot store it)', () => {
    const err = refusal(() => parseBody(LoginRequest, { base: 'acme', password: 'a\u0000b' }));
    expect(err.message).toBe('password: must not contain the NUL character (U+0000)');
  });
});
