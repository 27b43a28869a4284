import { MAX_BODY_DEPTH, canonicalJson, hashRequestBody } from './canonical-hash';

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

  it('when two bodies differ only by an own __proto__ key, then their hashes differ', () => {
    // JSON.parse makes `__proto__` an own property, as a request body's parser does.
    const withProto = JSON.parse('{"a":1,"__proto__":{"x":1}}');
    expect(canonicalJson(withProto)).toBe('{"__proto__":{"x":1},"a":1}');
    expect(hashRequestBody(withProto)).not.toBe(hashRequestBody({ a: 1 }));
  });
});

describe('canonicalJson: nesting bound', () => {
  const nest = (levels: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };

  it('when a body is nested as deep as the bound, then it is hashed', () => {
    expect(canonicalJson(nest(MAX_BODY_DEPTH))).toContain('1');
  });

  it('when a body is nested past the bound (or 20,000 deep), then a 400 naming the body, not a stack overflow', () => {
    for (const levels of [MAX_BODY_DEPTH + 1, 20_000]) {
      expect(() => hashRequestBody(nest(levels))).toThrow(
        expect.objectContaining({ status: 400, message: expect.stringMatching(/^body: /) }),
      );
    }
  });
});
