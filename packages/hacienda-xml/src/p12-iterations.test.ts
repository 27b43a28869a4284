// Issue 11.1: node-forge runs whatever iteration count a .p12 asks for, in pure JS, before checking the PIN.
// Every count (MAC, key bags, encrypted safes, key bags hidden inside them) is read first and refused above
// MAX_P12_ITERATIONS; Hacienda-shaped files (2048) still open.
import { HaciendaXmlError } from './errors';
import {
  MAX_P12_ITERATIONS,
  MAX_P12_KEY_BAGS,
  MAX_P12_TOTAL_ITERATIONS,
  p12IterationProblem,
  p12Iterations,
} from './p12-iterations';
import { openP12 } from './signing-key';
import {
  hiddenKeyBagBombP12,
  iterationBombP12,
  keyBagBombP12,
  makeTestP12,
  manyCountsP12,
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

  it('when a count is a 150 KB INTEGER, then it is refused at once as beyond 2^128, not read digit by digit', () => {
    // Read byte by byte, its value cost quadratic time on the event loop (before any thread sees the file).
    const bomb = iterationBombP12(1n << (8n * 150_000n - 2n));
    expect(bomb.length).toBeGreaterThan(150_000);
    expect(p12IterationProblem(bomb)).toBe(
      `PKCS#12 MAC iteration count ${1n << 128n} exceeds the ${MAX_P12_ITERATIONS} allowed (Hacienda's files use 2048)`,
    );
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

// Each count under the cap, but many of them: node-forge derives keys for every shrouded key bag and every
// encrypted safe, so ~150 bags at 100,000 rounds kept a thread busy for its whole P12_OPEN_TIMEOUT_MS.
describe('PKCS#12 total work', () => {
  const cap = BigInt(MAX_P12_ITERATIONS);

  it('when a file holds 150 key bags at the per-count cap, then it is refused for its number of bags, at once', () => {
    const bomb = manyCountsP12({ keyBags: 150, iterations: cap });
    const t0 = process.hrtime.bigint();
    const err = refusal(() => openP12(bomb, '1234'));
    expect(Number(process.hrtime.bigint() - t0) / 1e6).toBeLessThan(100);
    expect(err.code).toBe('p12_iterations');
    expect(err.message).toBe(
      `PKCS#12 holds 150 encrypted key bags; at most ${MAX_P12_KEY_BAGS} are allowed (Hacienda's files hold 1)`,
    );
    expect(p12IterationProblem(bomb)).toBe(err.message);
  });

  it('when the key bags are hidden in an encrypted safe, then they are counted once it is decrypted', () => {
    const bomb = hiddenKeyBagBombP12(2048n, '1234', MAX_P12_KEY_BAGS + 1);
    expect(p12IterationProblem(bomb)).toBeUndefined();
    expect(refusal(() => openP12(bomb, '1234')).message).toMatch(/^PKCS#12 holds 5 encrypted key bags;/);
  });

  it('when the counts add up beyond the budget (encrypted safes and key bags at the cap), then refused', () => {
    const bomb = manyCountsP12({ keyBags: 2, encryptedSafes: 4, iterations: cap, macIterations: cap });
    const err = refusal(() => openP12(bomb, '1234'));
    expect(err.code).toBe('p12_iterations');
    expect(err.message).toBe(
      `PKCS#12 iteration counts add up to 700000, beyond the ${MAX_P12_TOTAL_ITERATIONS} allowed (Hacienda's files use about 6000)`,
    );
  });

  it('when the bags and the total are within bounds, then the work check lets the file through', () => {
    const within = manyCountsP12({
      keyBags: MAX_P12_KEY_BAGS,
      encryptedSafes: 1,
      iterations: cap,
      macIterations: cap,
    });
    expect(p12IterationProblem(within)).toBeUndefined();
  });
});
