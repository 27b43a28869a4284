// The .p12 thread pool gives its threads back when idle: each is a V8 isolate of its own (memory, issue 15).
import { CertificateError } from '../src/emisor/certificate';
import { P12Pool } from '../src/emisor/p12-pool';
import { makeP12 } from './support/certificates';

const PIN = '1234';
const p12 = () => makeP12({ identificacion: 3101123456, tipoIdentificacion: 2, pin: PIN });

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('P12Pool', () => {
  let pool: P12Pool;
  afterEach(async () => {
    await pool.close();
  });

  it('when its threads have been idle for idleMs, then they end, and the next opening starts one again', async () => {
    pool = new P12Pool({ threads: 2, timeoutMs: 10_000, idleMs: 300 });
    const file = p12();
    const [a, b] = await Promise.all([pool.open(file, PIN), pool.open(file, PIN)]);
    expect(a.certificateDer.equals(b.certificateDer)).toBe(true);
    expect(pool.threadCount).toBeGreaterThanOrEqual(1);
    await waitFor(() => pool.threadCount === 0);

    const again = await pool.open(file, PIN);
    expect(again.certificateDer.equals(a.certificateDer)).toBe(true);
    expect(pool.threadCount).toBe(1);
  });

  it('when openings keep coming within idleMs, then the same thread serves them and is not retired', async () => {
    pool = new P12Pool({ threads: 1, timeoutMs: 10_000, idleMs: 1_500 });
    const file = p12();
    for (let i = 0; i < 4; i++) {
      await pool.open(file, PIN);
      expect(pool.threadCount).toBe(1);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(pool.threadCount).toBe(1);
    await waitFor(() => pool.threadCount === 0);
  });

  it('when a wrong PIN is refused, then the thread is kept for the next opening and still retires when idle', async () => {
    pool = new P12Pool({ threads: 1, timeoutMs: 10_000, idleMs: 300 });
    const file = p12();
    await expect(pool.open(file, 'wrong')).rejects.toBeInstanceOf(CertificateError);
    expect(pool.threadCount).toBe(1);
    expect((await pool.open(file, PIN)).certificateDer.length).toBeGreaterThan(0);
    await waitFor(() => pool.threadCount === 0);
  });
});
