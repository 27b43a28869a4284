import { validate } from './ajv';
import { CabysQuery, ContribuyenteQuery, EmisorWriteResponse, ExoneracionQuery } from './lookups.schema';

describe('lookup bodies', () => {
  it.each([
    [{ name: 'cafe' }],
    [{ name: 'jugo tomate', limite: 200 }],
    [{ name: 'x'.repeat(200), limite: 1 }],
  ])('when the CABYS query is %j, then it is valid', (body) => {
    expect(validate(CabysQuery, body).ok).toBe(true);
  });

  it.each([
    [{}, 'name', /is required/],
    [{ name: '' }, 'name', /fewer than 1|at least 1|NOT have fewer/i],
    [{ name: 7 }, 'name', /type string/],
    [{ name: 'x'.repeat(201) }, 'name', /more than 200/],
    [{ name: 'cafe', limite: 0 }, 'limite', /1/],
    [{ name: 'cafe', limite: 201 }, 'limite', /200/],
    [{ name: 'cafe', limite: 2.5 }, 'limite', /integer/],
  ])('when the CABYS query is %j, then %s is named', (body, path, reason) => {
    const r = validate(CabysQuery, body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toContainEqual({ path, reason: expect.stringMatching(reason) });
  });

  it('when an exoneration number is not a string, then exoneracion is named', () => {
    expect(validate(ExoneracionQuery, { exoneracion: 'AL-00020402-24' }).ok).toBe(true);
    const r = validate(ExoneracionQuery, { exoneracion: 20402 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]).toEqual({ path: 'exoneracion', reason: 'must be of type string' });
  });

  it('when a taxpayer id is digits as a string or a number, then it is valid; hyphens are not', () => {
    expect(validate(ContribuyenteQuery, { identificacion: '3101123456' }).ok).toBe(true);
    expect(validate(ContribuyenteQuery, { identificacion: 102340567 }).ok).toBe(true);
    expect(validate(ContribuyenteQuery, { identificacion: '3-101-123456' }).ok).toBe(false);
  });

  it('when an issuer answer carries warnings, then it matches the contract', () => {
    expect(
      validate(EmisorWriteResponse, {
        status: 'success',
        message: 'issuer 3101123456 registered',
        warnings: [{ path: 'codigoActividad', reason: 'not an active activity' }],
      }).ok,
    ).toBe(true);
  });
});
