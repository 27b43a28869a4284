import { WITHOUT_IFMA, describeSigningPath, rawSigningRateOnThreads, signingPath } from './signing-path';

const WITH = 'processor\t: 0\nflags\t\t: fpu sse2 avx2 adx avx512f avx512ifma sha_ni\n';
const WITHOUT = 'processor\t: 0\nflags\t\t: fpu sse2 avx2 adx bmi2 sha_ni\n';

describe('signingPath', () => {
  it('says OpenSSL signs with IFMA when the CPU reports it and OPENSSL_ia32cap does not hide it', () => {
    expect(signingPath(WITH, {})).toMatchObject({ cpuHasIfma: true, usesIfma: true });
    expect(signingPath(WITH, { OPENSSL_ia32cap: '~0x200000' })).toMatchObject({ usesIfma: true });
    expect(signingPath(WITH, { OPENSSL_ia32cap: ':~0x10000' })).toMatchObject({ usesIfma: true });
  });

  it('says it does not when OPENSSL_ia32cap clears the bit, replaces the word without it, or the CPU lacks it', () => {
    expect(signingPath(WITH, { OPENSSL_ia32cap: WITHOUT_IFMA })).toMatchObject({
      cpuHasIfma: true,
      usesIfma: false,
    });
    expect(signingPath(WITH, { OPENSSL_ia32cap: '~0x0:~0x290100' }).usesIfma).toBe(false);
    expect(signingPath(WITH, { OPENSSL_ia32cap: ':0x10000' }).usesIfma).toBe(false);
    expect(signingPath(WITHOUT, {})).toMatchObject({ cpuHasIfma: false, usesIfma: false });
    expect(signingPath('', {})).toMatchObject({ cpuHasIfma: false, usesIfma: false });
  });

  it('names the path in the words the benches print', () => {
    expect(describeSigningPath(signingPath(WITH, {}))).toMatch(
      /^OpenSSL [\d.]+\w* signs with AVX-512 IFMA on this CPU, about twice its rate without it/,
    );
    expect(describeSigningPath(signingPath(WITH, { OPENSSL_ia32cap: WITHOUT_IFMA }))).toContain(
      'this CPU has it; OPENSSL_ia32cap hides it',
    );
    expect(describeSigningPath(signingPath(WITHOUT, {}))).toContain('this CPU does not report it');
  });
});

describe('rawSigningRateOnThreads', () => {
  it('signs in a child process on the threads asked for, with IFMA and with it hidden', async () => {
    const one = await rawSigningRateOnThreads(1, 0.3);
    const two = await rawSigningRateOnThreads(2, 0.3, { withoutIfma: true });
    // Any machine that runs the suite signs hundreds a second; a broken child rejects instead.
    expect(one).toBeGreaterThan(50);
    expect(two).toBeGreaterThan(50);
  }, 30_000);
});
