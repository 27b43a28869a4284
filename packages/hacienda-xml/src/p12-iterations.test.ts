// Issue 11.1: node-forge runs whatever iteration count a .p12 asks for, in pure JS, before checking the PIN.
// Every count (MAC, key bags, encrypted safes, key bags hidden inside them) is read first and refused above
// MAX_P12_ITERATIONS; Hacienda-shaped files (2048) still open.
import { HaciendaXmlError } from './errors';
import { MAX_P12_ITERATIONS, p12IterationProblem, p12Iterations } from './p12-iterations';
import { openP12 } from './signing-key';
import {
  hiddenKeyBagBombP12,
  iterationBombP12,
  keyBagBombP12,
  makeTestP12,
} from './testing/test-certificate';

function refusal(run: () => unknown): HaciendaXmlError {
  try {
    run();
  } catch (err) {
    if (err instanceof HaciendaXmlError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('PKCS#12 iteration counts', () => {
  it('when a Hacienda-shaped .p12 is read, then its counts are 2048 and it opens', () => {
    const { p12, pin } = makeTestP12();
    const counts = p12Iterations(p12)!;
    expect(counts.map((c) => c.where)).toEqual(expect.arrayContaining(['MAC', 'key bag 1']));
    expect(counts.every((c) => c.iterations === 2048n)).toBe(true);
    expect(p12IterationProblem(p12)).toBeUndefined();
    expect(openP12(p12, pin).subjectSerialNumber).toBe('CPJ-3-101-123456');
  });

  it('when the crafted file asks for 2^31 MAC iterations, then openP12 refuses it before deriving anything', () => {
    const bomb = iterationBombP12();
    expect(bomb.length).toBeLessThan(100);
    const err = refusal(() => openP12(bomb, 'any'));
    expect(err.code).toBe('p12_iterations');
    expect(err.message).toBe(
      "PKCS#12 MAC iteration count 2147483648 exceeds the 100000 allowed (Hacienda's files use 2048)",
    );
  });

  it('when a count is beyond 2^64, then it is read exactly, not wrapped to something small', () => {
    expect(p12IterationProblem(iterationBombP12(2n ** 64n + 5n))).toContain('18446744073709551621');
    expect(p12IterationProblem(iterationBombP12(0n))).toContain('is not a positive number');
    expect(p12IterationProblem(iterationBombP12(BigInt(MAX_P12_ITERATIONS)))).toBeUndefined();
  });

  it('when a key bag asks for 10^6 iterations, then it is refused naming the key bag', () => {
    const err = refusal(() => openP12(keyBagBombP12(1_000_000n), '1234'));
    expect(err.code).toBe('p12_iterations');
    expect(err.message).toMatch(/^PKCS#12 key bag 1 iteration count 1000000 exceeds/);
  });

  it('when the key bag hides inside an encrypted safe, then it is found by decrypting the safe and refused', () => {
    const bomb = hiddenKeyBagBombP12(2n ** 31n, '1234');
    // Nothing shows from outside but the safe's own, harmless count.
    expect(p12IterationProblem(bomb)).toBeUndefined();
    const err = refusal(() => openP12(bomb, '1234'));
    expect(err.message).toMatch(/^PKCS#12 key bag 1 of encrypted safe 1 iteration count 2147483648 exceeds/);
  });

  it('when the bytes are not a PKCS#12, then invalid_p12 as before', () => {
    expect(p12Iterations(Buffer.from('not a p12'))).toBeUndefined();
    expect(refusal(() => openP12(Buffer.from('not a p12'), '1')).code).toBe('invalid_p12');
  });
});
