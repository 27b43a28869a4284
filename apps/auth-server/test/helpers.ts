// Builds a real auth-server for component tests: a fresh database (PGlite, or PostgreSQL under
// TEST_DATABASE_URL), migrations, a frozen clock the test moves by hand, and a logger captured in memory.
import { join } from 'node:path';
import { latch } from '@cr/testkit';
import type { Express } from 'express';
import request from 'supertest';
import {
  MemoryTransport,
  SecretBox,
  type TestDatabase,
  createLogger,
  createTestDatabase,
  listen,
  migrate,
  readMigrations,
} from '@cr/service-kit';
import { createApp } from '../src/app';
import { type AuthServices, type AuthServicesOptions, createAuthServices } from '../src/services';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
/** Cheap argon2id for tests; the OWASP parameters are the production default. */
export const TEST_ARGON2 = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

export interface Harness {
  db: TestDatabase;
  services: AuthServices;
  app: Express;
  logs: MemoryTransport;
  clock: { now: number; advance(ms: number): void };
  close(): Promise<void>;
}

export async function startHarness(overrides: Partial<AuthServicesOptions> = {}): Promise<Harness> {
  const db = await createTestDatabase();
  await migrate(db, readMigrations(join(__dirname, '..', 'migrations')));
  const logs = new MemoryTransport();
  const logger = createLogger({ service: 'auth-server', level: 'debug', transports: [logs] });
  const clock = {
    now: Math.floor(Date.now() / 1000) * 1000,
    advance(ms: number) {
      this.now += ms;
    },
  };
  const services = await createAuthServices({
    db,
    secretBox: new SecretBox([{ id: 't1', key: Buffer.alloc(32, 7) }]),
    logger,
    now: () => clock.now,
    adminToken: ADMIN_TOKEN,
    argon2: TEST_ARGON2,
    ...overrides,
  });
  return {
    db,
    services,
    app: createApp(services),
    logs,
    clock,
    close: async () => {
      await services.hasher.close();
      await db.close().catch(() => undefined);
    },
  };
}

export interface ListeningHarness extends Harness {
  /** Where the app listens (127.0.0.1, an ephemeral port), for what needs a real URL: the CLI, jwks-rsa. */
  url: string;
}

/** startHarness with the app listening; close() stops the server, then the harness. */
export async function startListeningHarness(
  overrides: Partial<AuthServicesOptions> = {},
): Promise<ListeningHarness> {
  const h = await startHarness(overrides);
  const server = await listen(h.app, 0, '127.0.0.1');
  return {
    ...h,
    url: server.url,
    close: async () => {
      await server.close();
      await h.close();
    },
  };
}

export function admin(): { authorization: string } {
  return { authorization: `Bearer ${ADMIN_TOKEN}` };
}

/** POST /admin/clients with the admin token; the caller asserts the status (`.expect(201)`). */
export function createClient(h: Pick<Harness, 'app'>, body: Record<string, unknown>) {
  return request(h.app).post('/admin/clients').set(admin()).send(body);
}

/** The kids the JWKS publishes now. */
export async function publishedKids(h: Pick<Harness, 'app'>): Promise<string[]> {
  const res = await request(h.app).get('/.well-known/jwks.json').expect(200);
  return (JSON.parse(res.text) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
}

export interface Gate {
  /** Resolves when a call has reached the gate (its real work done, its answer held back). */
  reached: Promise<void>;
  /** How many calls have reached the gate so far. */
  readonly calls: number;
  /** Lets every held call (and every later one) return. */
  release(): void;
  /** Puts the method back as it was. */
  restore(): void;
}

/**
 * Holds the answers of `target[method]` until released: the real method runs, its result waits. Stands for
 * the time a login spends in the hash queue (or between two of its queries), so a test can change the world
 * in between without a timer.
 */
export function gateAfter<T extends object, K extends keyof T>(target: T, method: K): Gate {
  const real = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  const { promise: reachedP, release: reached } = latch();
  const { promise: released, release } = latch();
  let calls = 0;
  const gated = async (...args: unknown[]) => {
    const result = await real.apply(target, args);
    calls++;
    reached();
    await released;
    return result;
  };
  (target as Record<K, unknown>)[method] = gated;
  return {
    reached: reachedP,
    get calls() {
      return calls;
    },
    release,
    restore: () => {
      (target as Record<K, unknown>)[method] = real;
    },
  };
}

/** Resolves once `done()` holds, checking after each turn of the event loop (no timer, no deadline). */
export async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setImmediate(r));
}
