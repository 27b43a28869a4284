import { LoginRequest } from './login.schema';
import { describeIssues, pointerToPath, validate } from './ajv';

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
});
