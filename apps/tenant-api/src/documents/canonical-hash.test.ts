import { canonicalJson, hashRequestBody } from './canonical-hash';

describe('hashRequestBody', () => {
  it('when two bodies differ only in key order, then their hashes are equal', () => {
    const a = { b: 1, a: { y: [1, { q: 2, p: 1 }], x: 'z' } };
    const b = { a: { x: 'z', y: [1, { p: 1, q: 2 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(hashRequestBody(a)).toBe(hashRequestBody(b));
  });

  it('when a value or the order of an array changes, then the hash changes', () => {
    expect(hashRequestBody({ a: [1, 2] })).not.toBe(hashRequestBody({ a: [2, 1] }));
    expect(hashRequestBody({ a: '1' })).not.toBe(hashRequestBody({ a: 1 }));
  });
});
