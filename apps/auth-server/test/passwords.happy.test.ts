// The password hasher: argon2id on threads of their own that run at a lower priority than the event loop,
// bounded in how many hash at once and how many may wait.
import { getPriority } from 'node:os';
import { AppError } from '@cr/service-kit';
import { PasswordHasher } from '../src/passwords';
import { TEST_ARGON2 } from './helpers';

const onLinux = process.platform === 'linux' ? it : it.skip;

describe('PasswordHasher', () => {
  const hashers: PasswordHasher[] = [];
  const hasher = (options: ConstructorParameters<typeof PasswordHasher>[0] = {}) => {
    const h = new PasswordHasher({ params: TEST_ARGON2, ...options });
    hashers.push(h);
    return h;
  };
  afterEach(async () => {
    await Promise.all(hashers.splice(0).map((h) => h.close()));
  });

  it('hashes with argon2id and the configured parameters, and verifies the right password only', async () => {
    const h = hasher();
    const phc = await h.hash('correct horse battery staple');
    expect(phc).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(h.needsRehash(phc)).toBe(false);
    await expect(h.verify(phc, 'correct horse battery staple')).resolves.toBe(true);
    await expect(h.verify(phc, 'correct horse battery stapler')).resolves.toBe(false);
  });

  it('answers false for a malformed stored hash instead of throwing', async () => {
    const h = hasher();
    await expect(h.verify('$argon2id$garbage', 'x')).resolves.toBe(false);
    await expect(h.verify('', 'x')).resolves.toBe(false);
  });

  it('answers 503, not a wrong password, when its thread is stopped before it answers; the next call works', async () => {
    const h = hasher({ concurrency: 1 });
    const phc = await h.hash('pw');
    const interrupted = h.verify(phc, 'pw');
    await h.close();
    const reason = await interrupted.then(
      (value) => ({ answered: value }),
      (err: unknown) => err,
    );
    expect(reason).toBeInstanceOf(AppError);
    expect(reason).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    await expect(h.verify(phc, 'pw')).resolves.toBe(true);
  });

  onLinux(
    'runs the hashing threads at the configured nice value and leaves the event loop at its own',
    async () => {
      const mine = getPriority();
      await expect(hasher().threadPriority()).resolves.toBe(10);
      await expect(hasher({ nice: 19 }).threadPriority()).resolves.toBe(19);
      await expect(hasher({ nice: 0 }).threadPriority()).resolves.toBe(0);
      expect(getPriority()).toBe(mine);
    },
  );

  it('refuses with 503 once the running hashes and the waiting ones reach their limits', async () => {
    const h = hasher({ concurrency: 1, queueLimit: 1 });
    const phc = await h.hash('pw');
    const results = await Promise.allSettled([h.verify(phc, 'pw'), h.verify(phc, 'pw'), h.verify(phc, 'pw')]);
    expect(results.slice(0, 2)).toEqual([
      { status: 'fulfilled', value: true },
      { status: 'fulfilled', value: true },
    ]);
    const refused = results[2] as PromiseRejectedResult;
    expect(refused.status).toBe('rejected');
    expect(refused.reason).toBeInstanceOf(AppError);
    expect((refused.reason as AppError).status).toBe(503);
  });

  it('hashes several at once, and starts its threads again after close', async () => {
    const h = hasher({ concurrency: 2 });
    const phcs = await Promise.all(['a', 'b', 'c', 'd'].map((p) => h.hash(p)));
    await expect(Promise.all(phcs.map((phc, i) => h.verify(phc, 'abcd'[i]!)))).resolves.toEqual([
      true,
      true,
      true,
      true,
    ]);
    await h.close();
    await expect(h.verify(phcs[0]!, 'a')).resolves.toBe(true);
  });
});
