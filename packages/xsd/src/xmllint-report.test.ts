import { MAX_ERRORS, XmllintReport } from './xmllint-report';

describe("attributing xmllint's lines to the files of a run", () => {
  const A = '/tmp/cr-xsd-x/aaaa.xml';
  const B = '/tmp/cr-xsd-x/bbbb.xml';
  const C = '/tmp/cr-xsd-x/cccc.xml';

  it('when several files are judged in one run, then each gets its verdict and only its own lines', () => {
    const report = new XmllintReport([A, B, C]);
    const stderr = [
      `${A}:3: element Clave: Schemas validity error : bad A`,
      `${A} fails to validate`,
      `${B}:2: parser error : expected '>'`,
      `  <Clave>1</Clave`,
      `           ^`,
      `${C} validates`,
      '',
    ].join('\n');
    // Chunks split anywhere, as a pipe delivers them.
    for (let i = 0; i < stderr.length; i += 7) report.push(stderr.slice(i, i + 7));
    report.end();
    expect(report.files.get(A)).toEqual({
      verdict: 'fails',
      errors: ['line 3: element Clave: Schemas validity error : bad A'],
    });
    expect(report.files.get(B)).toEqual({
      verdict: undefined,
      errors: ["line 2: parser error : expected '>'", '<Clave>1</Clave', '^'],
    });
    expect(report.files.get(C)).toEqual({ verdict: 'validates', errors: [] });
    expect(report.other).toEqual([]);
  });

  it('when a line names one of the files elsewhere than at its start, then it is nobody’s complaint', () => {
    const report = new XmllintReport([A, B]);
    report.push(`${A}:1: parser error : x\nwarning: failed to load external entity "${B}"\ncontext\n`);
    report.end();
    expect(report.files.get(A)?.errors).toEqual(['line 1: parser error : x']);
    expect(report.files.get(B)?.errors).toEqual([]);
    expect(report.other).toEqual([`warning: failed to load external entity "${B}"`, 'context']);
  });

  it('when a file draws many complaints, then it keeps the first MAX_ERRORS and its verdict', () => {
    const report = new XmllintReport([A]);
    for (let i = 1; i <= 50; i++) report.push(`${A}:${i}: element x: error ${i}\n`);
    report.push(`${A} fails to validate\n`);
    report.end();
    expect(report.files.get(A)?.errors).toHaveLength(MAX_ERRORS);
    expect(report.files.get(A)?.verdict).toBe('fails');
  });
});
