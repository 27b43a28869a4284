// Client passwords: argon2id PHC strings computed by @node-rs/argon2 on threads of their own at a lower
// scheduling priority (hash-threads.ts), so a login flood neither blocks the event loop nor takes its CPU
// (JWKS and /health stay fast). A small semaphore bounds how many hashes run at once and how many may wait;
// beyond that the caller gets 503 instead of an unbounded queue that would eat memory (19 MiB per running
// hash) and make every login time out.
import { AppError } from '@cr/service-kit';
import { HashInputError, HashThreads } from './hash-threads';

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
  /** Nice value of the hashing threads (Linux): 0 competes with the event loop, 19 takes only idle CPU. */
  nice?: number;
}

/** Default nice of the hashing threads: a login gets about a tenth of a core that the event loop wants. */
export const HASH_NICE = 10;

// @node-rs/argon2 exports Algorithm as an ambient const enum (unusable under isolatedModules); 2 = Argon2id.
const ARGON2ID = 2;

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/;

/** An argon2 thread that died (or was stopped) mid-operation: 503, retry; argon2's own refusals stay as
 *  they are. */
function threadLost(err: unknown): never {
  if (err instanceof HashInputError) throw err;
  throw new AppError('service_unavailable', 'the password check was interrupted; retry shortly', {
    headers: { 'Retry-After': '1' },
    cause: err,
  });
}

export class PasswordHasher {
  readonly params: Argon2Params;
  private readonly concurrency: number;
  private readonly queueLimit: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private dummyHash: Promise<string> | undefined;
  private readonly threads: HashThreads;

  constructor(options: PasswordHasherOptions = {}) {
    this.params = options.params ?? OWASP_ARGON2;
    this.concurrency = options.concurrency ?? 2;
    this.queueLimit = options.queueLimit ?? 512;
    this.threads = new HashThreads({ size: this.concurrency, nice: options.nice ?? HASH_NICE });
  }

  async hash(password: string): Promise<string> {
    return this.limit(() =>
      this.threads.hash(password, { algorithm: ARGON2ID, ...this.params }).catch(threadLost),
    );
  }

  /**
   * False for a malformed stored hash (argon2 refuses it), so that login is a 401 and never a 500. A thread
   * that died before answering gave no answer: that is a 503 (the next call starts a new thread), not a
   * wrong password.
   */
  async verify(phc: string, password: string): Promise<boolean> {
    return this.limit(() =>
      this.threads
        .verify(phc, password)
        .catch((err: unknown) => (err instanceof HashInputError ? false : threadLost(err))),
    );
  }

  /** The nice value the hashing threads run at, as the kernel reports it. */
  threadPriority(): Promise<number> {
    return this.threads.priority();
  }

  /** Stops the hashing threads (a later call starts them again). */
  close(): Promise<void> {
    return this.threads.close();
  }

  /**
   * Verifies against a fixed hash of a random password with the current parameters, so an unknown client
   * costs the same time as a known one with a wrong password.
   */
  async verifyDummy(password: string): Promise<void> {
    this.dummyHash ??= this.threads
      .hash(`dummy-${Math.random()}-${Date.now()}`, { algorithm: ARGON2ID, ...this.params })
      .catch((err: unknown) => {
        this.dummyHash = undefined; // made again by the next call rather than failing every later one
        throw err;
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
