// A document with thousands of problems is refused with the first MAX_LISTED_ISSUES of them and a count of
// the rest, as the contract's validation answers: never a message of megabytes.
import { MAX_LISTED_ISSUES, describeIssues } from '@cr/contracts';
import { DocumentError, MAX_LISTED_DOCUMENT_ISSUES, buildSignedDocument, openP12 } from '../src';
import { ISSUER, invoice, line } from '../src/testing/mothers';
import { makeTestP12 } from '../src/testing/test-certificate';

const issues = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ path: `detalleServicio[${i}].numeroLinea`, reason: 'is wrong' }));

describe('DocumentError: a bounded list of issues', () => {
  it('when it is given more issues than the cap, then it keeps the first ones and counts the rest, as the contract does', () => {
    expect(MAX_LISTED_DOCUMENT_ISSUES).toBe(MAX_LISTED_ISSUES);
    const all = issues(27_018);
    const err = new DocumentError(all);
    expect(err.issues).toEqual(all.slice(0, MAX_LISTED_ISSUES));
    expect(err.more).toBe(27_018 - MAX_LISTED_ISSUES);
    expect(err.message).toBe(describeIssues(all.slice(0, MAX_LISTED_ISSUES), 27_018 - MAX_LISTED_ISSUES));
    expect(err.message).toMatch(/; … and 26,968 more$/);
    expect(err.message.length).toBeLessThan(4_000);
  });

  it('when it is given the cap or fewer, then it lists them all and counts none', () => {
    const err = new DocumentError(issues(MAX_LISTED_ISSUES));
    expect(err.issues).toHaveLength(MAX_LISTED_ISSUES);
    expect(err.more).toBe(0);
    expect(err.message).not.toMatch(/more$/);
  });

  it('when the engine finds a problem on each of 1,000 lines, then it throws the first 50 and the count', () => {
    const { p12, pin } = makeTestP12();
    // Every line numbered 1: the contract accepts each, the engine refuses 999 of them.
    const document = invoice({ detalleServicio: Array.from({ length: 1000 }, () => line(1)) });
    let thrown: unknown;
    try {
      buildSignedDocument({ document, issuer: ISSUER, key: openP12(p12, pin) });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DocumentError);
    const err = thrown as DocumentError;
    expect(err.issues).toHaveLength(MAX_LISTED_ISSUES);
    expect(err.issues[0]).toMatchObject({ path: 'detalleServicio[1].numeroLinea' });
    expect(err.more).toBeGreaterThanOrEqual(999 - MAX_LISTED_ISSUES);
    expect(err.message).toMatch(/… and [\d,]+ more$/);
    expect(err.message.length).toBeLessThan(8_000);
  });
});
