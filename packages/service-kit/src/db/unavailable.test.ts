import {
  type DatabaseUnavailableError,
  brokeTheConnection,
  isUnavailability,
  readsOnly,
  unavailableOr,
} from './unavailable';

const withCode = (message: string, code: string, severity?: string) =>
  Object.assign(new Error(message), { code, ...(severity ? { severity } : {}) });

describe('unavailable', () => {
  it('when the error says the database is out of reach, then it is an unavailability; a wrong statement or datum is not', () => {
    expect(isUnavailability(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isUnavailability(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isUnavailability(new Error('Query read timeout'))).toBe(true);
    expect(isUnavailability(withCode('canceling statement due to statement timeout', '57014'))).toBe(true);
    expect(isUnavailability(withCode('terminating connection', '57P01', 'FATAL'))).toBe(true);
    expect(isUnavailability(withCode('duplicate key value', '23505'))).toBe(false);
    expect(isUnavailability(withCode('could not serialize access', '40001'))).toBe(false);
    expect(isUnavailability(new TypeError('x is not a function'))).toBe(false);
    expect(isUnavailability('Connection terminated')).toBe(false);
  });

  it('when the server answered an error, then the session is kept unless the error ended it', () => {
    expect(brokeTheConnection(withCode('duplicate key value', '23505', 'ERROR'))).toBe(false);
    expect(brokeTheConnection(withCode('canceling statement', '57014', 'ERROR'))).toBe(false);
    expect(brokeTheConnection(withCode('terminating connection', '57P01', 'FATAL'))).toBe(true);
    expect(brokeTheConnection(new Error('Query read timeout'))).toBe(true);
  });

  it('when a write was sent and its answer lost, then it may have taken effect; refused before it was sent, or answered with an error, it did not', () => {
    const lost = unavailableOr(new Error('Connection terminated unexpectedly'), true);
    expect((lost as DatabaseUnavailableError).mayHaveTakenEffect).toBe(true);
    const unsent = unavailableOr(new Error('timeout exceeded when trying to connect'), true);
    expect((unsent as DatabaseUnavailableError).mayHaveTakenEffect).toBe(false);
    const cancelled = unavailableOr(withCode('canceling statement', '57014'), true);
    expect((cancelled as DatabaseUnavailableError).mayHaveTakenEffect).toBe(false);
    const duplicate = withCode('duplicate key value', '23505');
    expect(unavailableOr(duplicate, true)).toBe(duplicate);
  });

  it('when a statement only reads, then it writes nothing on its own', () => {
    expect(readsOnly('  SELECT id FROM documents WHERE tenant_id = $1')).toBe(true);
    expect(readsOnly('select 1')).toBe(true);
    expect(readsOnly('WITH x AS (DELETE FROM jobs RETURNING id) SELECT count(*) FROM x')).toBe(false);
    expect(readsOnly('SELECT 1; DELETE FROM jobs')).toBe(false);
    expect(readsOnly('INSERT INTO items VALUES (1)')).toBe(false);
  });
});
