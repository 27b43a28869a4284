// Client passwords: argon2id PHC strings computed by @node-rs/argon2 on the libuv thread pool, so a login
// flood never blocks the event loop (JWKS and /health stay fast). A small semaphore bounds how many hashes
// run at once and how many may wait; beyond that the caller gets 503 instead of an unbounded queue that
// would eat memory (19 MiB per running hash) and make every login time out.
import { hash, verify } from '@node-rs/argon2';
import { AppError } from '@cr/service-kit';

export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP Password Storage Cheat Sheet, argon2id: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2: Argon2Params = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

export interface PasswordHasherOptions {
  params?: Argon2Params;
  concurrency?: number;
  queueLimit?: number;
}

// @node-rs/argon2 exports Algorithm as an ambient const enum (unusable under isolatedModules); 2 = Argon2id.
const ARGON2ID = 2;

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/;

export class PasswordHasher {
  readonly params: Argon2Params;
  private readonly concurrency: number;
  private readonly queueLimit: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private dummyHash: Promise<string> | undefined;

  constructor(options: PasswordHasherOptions = {}) {
    this.params = options.params ?? OWASP_ARGON2;
    this.concurrency = options.concurrency ?? 2;
    this.queueLimit = options.queueLimit ?? 512;
  }

  async hash(password: string): Promise<string> {
    return this.limit(() => hash(password, { algorithm: ARGON2ID, ...this.params }));
  }

  /** False for a malformed stored hash rather than throwing: a login never turns into a 500. */
  async verify(phc: string, password: string): Promise<boolean> {
    return this.limit(() => verify(phc, password).catch(() => false));
  }

  /**
   * Verifies against a fixed hash of a random password with the current parameters, so an unknown client
   * costs the same time as a known one with a wrong password.
   */
  async verifyDummy(password: string): Promise<void> {
    this.dummyHash ??= hash(`dummy-${Math.random()}-${Date.now()}`, {
      algorithm: ARGON2ID,
      ...this.params,
    });
    await this.verify(await this.dummyHash, password);
  }

  /** Whether a stored hash was made with other parameters (or another algorithm) and should be redone. */
  needsRehash(phc: string): boolean {
    const m = PHC.exec(phc);
    if (!m) return true;
    return (
      Number(m[1]) !== this.params.memoryCost ||
      Number(m[2]) !== this.params.timeCost ||
      Number(m[3]) !== this.params.parallelism
    );
  }

  private async limit<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queueLimit) {
        throw new AppError('service_unavailable', 'too many logins in progress; retry shortly', {
          headers: { 'Retry-After': '1' },
        });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
