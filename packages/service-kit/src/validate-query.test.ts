import { ClientListQuery } from '@cr/contracts';
import { refusal } from './testing/refusal';
import { parseQuery } from './validate-query';

describe('parseQuery', () => {
  it('when an integer parameter arrives as decimal digits, then it is read as the integer', () => {
    expect(parseQuery(ClientListQuery, { after: 'acme', limit: '20' })).toEqual({ after: 'acme', limit: 20 });
  });

  it('when a parameter is not in the schema, then it is ignored', () => {
    expect(parseQuery(ClientListQuery, { limit: '5', _: '1700000000' })).toEqual({ limit: 5 });
  });

  it.each([
    ['not digits', { limit: '1e2' }, 'limit: must be of type integer'],
    ['out of range', { limit: '201' }, 'limit: must be <= 200'],
    ['repeated', { after: ['a', 'b'] }, 'after: must be of type string'],
  ])('when a parameter is %s, then the 400 names it', (_name, query, message) => {
    const err = refusal(() => parseQuery(ClientListQuery, query));
    expect(err).toMatchObject({ code: 'bad_request', status: 400, message });
  });

  it("when the route words a parameter's reason, then its refusals say that, once", () => {
    const err = refusal(() =>
      parseQuery(ClientListQuery, { after: 'A\u0000', limit: '0' }, { after: 'must be a base' }),
    );
    expect(err.message).toBe('after: must be a base; limit: must be >= 1');
    expect(err.details).toEqual([
      { path: 'after', reason: 'must be a base' },
      { path: 'limit', reason: 'must be >= 1' },
    ]);
  });
});
