import { LoginRequest } from './login.schema';
import { DocumentRequest } from './document.schema';
import { MAX_LISTED_ISSUES, NUL_REASON, describeIssues, pointerToPath, validate } from './ajv';

describe('validate', () => {
  it('when the body is valid, then returns the typed value', () => {
    const r = validate(LoginRequest, { base: 'acme', password: 'x' });
    expect(r).toEqual({ ok: true, value: { base: 'acme', password: 'x' } });
  });

  it('when fields are missing or wrong-typed, then names each field', () => {
    const r = validate(LoginRequest, { password: 5 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual(
      expect.arrayContaining([
        { path: 'base', reason: 'is required' },
        { path: 'password', reason: 'must be of type string' },
      ]),
    );
    expect(describeIssues(r.issues)).toContain('base: is required');
  });

  it('when the body is not an object, then reports the root', () => {
    const r = validate(LoginRequest, 'nope');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.path).toBe('(body)');
  });

  it('converts JSON pointers to dotted paths with indexes', () => {
    expect(pointerToPath('/detalleServicio/0/impuesto/1/tarifa')).toBe(
      'detalleServicio[0].impuesto[1].tarifa',
    );
    expect(pointerToPath('')).toBe('');
  });

  it('when a string holds U+0000, then names it (PostgreSQL text cannot store it), as the login body of the auth-server', () => {
    expect(validate(LoginRequest, { base: 'acme\u0000', password: 'x\u0000y' })).toEqual({
      ok: false,
      issues: [
        { path: 'base', reason: NUL_REASON },
        { path: 'password', reason: NUL_REASON },
      ],
      more: 0,
    });
  });

  it('when a key holds U+0000, then names it with the NUL written out', () => {
    const r = validate(LoginRequest, { base: 'acme', password: 'x', ['a\u0000b']: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toContainEqual({ path: 'a\\u0000b', reason: NUL_REASON });
  });

  it('when a small body has many problems, then lists MAX_LISTED_ISSUES and counts the rest', () => {
    const r = validate(DocumentRequest, { detalleServicio: Array.from({ length: 40 }, () => ({})) });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(MAX_LISTED_ISSUES);
    expect(r.more).toBeGreaterThan(200);
    expect(describeIssues(r.issues, r.more)).toMatch(new RegExp(`; … and ${r.more} more$`));
  });

  it('when a large body fails, then only its first problem is searched for and listed', () => {
    const r = validate(DocumentRequest, { detalleServicio: Array.from({ length: 80_000 }, () => ({})) });
    expect(r).toEqual({ ok: false, issues: [{ path: 'emisor', reason: 'is required' }], more: 'unsearched' });
    expect(describeIssues(r.ok ? [] : r.issues, 'unsearched')).toBe(
      'emisor: is required; … (only the first problem is listed for a body this large)',
    );
  });

  it('when a large body has 100,000 unknown keys, then one problem is reported', () => {
    const body: Record<string, number> = { base: 0 };
    for (let i = 0; i < 100_000; i++) body[`k${i}`] = 0;
    const r = validate(LoginRequest, body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toHaveLength(1);
  });
});
