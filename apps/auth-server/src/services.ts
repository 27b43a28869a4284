// Wires the auth-server's components from a database, a secret box and settings. main.ts, the tests and the
// benchmark all build the service through here, so they run the same code.
import type { Db, Logger, SecretBox, TrustProxySetting } from '@cr/service-kit';
import { ApiKeyStore } from './api-keys';
import { ClientStore } from './clients';
import { KeyStore } from './keys';
import { type Argon2Params, OWASP_ARGON2, PasswordHasher } from './passwords';
import { LogoutLimit } from './logout-limit';
import { RevocationStore } from './revocations';
import { LoginThrottle, type ThrottlePolicy } from './throttle';
import { TokenService } from './tokens';

export interface AuthServicesOptions {
  db: Db;
  secretBox: SecretBox;
  logger: Logger;
  /** Milliseconds since the epoch; tests inject a frozen clock. */
  now?: () => number;
  issuer?: string;
  audience?: string;
  /** Unset → the admin API does not exist (404). */
  adminToken?: string | undefined;
  jwksMaxAgeSeconds?: number;
  argon2?: Argon2Params;
  hashConcurrency?: number;
  hashQueueLimit?: number;
  /** Nice value of the argon2 threads (HASH_NICE). */
  hashNice?: number;
  throttle?: {
    perBaseIp?: ThrottlePolicy;
    perBase?: ThrottlePolicy;
    windowMs?: number;
    attackDelayMs?: number;
    successMemoryMs?: number;
  };
  /** `parseTrustProxy(TRUST_PROXY)`. */
  trustProxy?: TrustProxySetting;
  /** HEALTH_TOKEN: opens /health/details. */
  healthToken?: string | undefined;
  /** LOGOUTS_PER_MINUTE: logouts per credential and minute (logout-limit.ts); 0 turns it off. Default 60. */
  logoutsPerMinute?: number;
}

export interface AuthServices {
  db: Db;
  logger: Logger;
  now: () => number;
  issuer: string;
  audience: string;
  adminToken: string | undefined;
  jwksMaxAgeSeconds: number;
  trustProxy: TrustProxySetting | undefined;
  healthToken: string | undefined;
  keys: KeyStore;
  tokens: TokenService;
  clients: ClientStore;
  apiKeys: ApiKeyStore;
  hasher: PasswordHasher;
  throttle: LoginThrottle;
  revocations: RevocationStore;
  logouts: LogoutLimit;
}

/** Builds the components and loads (or, on a fresh database, creates) the signing keys. */
export async function createAuthServices(options: AuthServicesOptions): Promise<AuthServices> {
  const now = options.now ?? Date.now;
  const issuer = options.issuer ?? 'http://localhost:4000';
  const audience = options.audience ?? 'tenant-api';
  const jwksMaxAgeSeconds = options.jwksMaxAgeSeconds ?? 300;
  const db = options.db;
  const keys = new KeyStore({ db, secretBox: options.secretBox, now, jwksMaxAgeSeconds });
  await keys.init();
  return {
    db,
    logger: options.logger,
    now,
    issuer,
    audience,
    adminToken: options.adminToken,
    jwksMaxAgeSeconds,
    trustProxy: options.trustProxy,
    healthToken: options.healthToken,
    keys,
    tokens: new TokenService({ keys, issuer, audience, now }),
    clients: new ClientStore(db, now),
    apiKeys: new ApiKeyStore(db, now),
    hasher: new PasswordHasher({
      params: options.argon2 ?? OWASP_ARGON2,
      ...(options.hashConcurrency ? { concurrency: options.hashConcurrency } : {}),
      ...(options.hashQueueLimit !== undefined ? { queueLimit: options.hashQueueLimit } : {}),
      ...(options.hashNice !== undefined ? { nice: options.hashNice } : {}),
    }),
    throttle: new LoginThrottle({
      db,
      now,
      // The alert of a many-address attack on one client: operators watch for this line.
      onAttack: ({ base, failures }) =>
        options.logger.warn('login attack on base: failing addresses are slowed, none is locked out', {
          base,
          failures,
        }),
      ...options.throttle,
    }),
    revocations: new RevocationStore({ db, now }),
    logouts: new LogoutLimit({ db, now, perMinute: options.logoutsPerMinute ?? 60 }),
  };
}
