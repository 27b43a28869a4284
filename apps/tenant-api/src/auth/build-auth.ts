// Builds the process's token verification from the settings: one JWKS key source (or the local PEM), kept
// fresh on the JWKS's Cache-Control max-age, the background revocation list, and readiness (JWKS reachable
// or a key cached, or the PEM present). composeTenantApi adds the revocation list's own readiness.
import type { HealthCheck, Logger } from '@cr/service-kit';
import { type TenantConfig, revocationsUrlFor } from '../config';
import { JwksKeySource, type KeySource, PemKeySource } from './key-source';
import { RevocationList, type RevocationSource, noRevocations } from './revocation-list';
import { TokenVerifier } from './token-verifier';

export interface Auth {
  verifier: TokenVerifier;
  keys: KeySource;
  revocations: RevocationSource;
  /** The polled list, when an auth-server is configured (its health is a readiness check). */
  revocationList: RevocationList | undefined;
  readiness: Record<string, HealthCheck>;
  /** Loads the keys and the revocation list once (awaited), then keeps both fresh. */
  start(): Promise<void>;
  stop(): void;
}

export function buildAuth(config: TenantConfig, logger: Logger): Auth {
  let keys: KeySource;
  let jwks: JwksKeySource | undefined;
  if (config.AUTH_PUBLIC_KEY_PATH) keys = PemKeySource.fromFile(config.AUTH_PUBLIC_KEY_PATH);
  else if (config.AUTH_JWKS_URL) keys = jwks = new JwksKeySource({ jwksUri: config.AUTH_JWKS_URL, logger });
  else throw new Error('AUTH_JWKS_URL or AUTH_PUBLIC_KEY_PATH: one is required');
  const revocationsUrl = revocationsUrlFor(config);
  const revocationList = revocationsUrl
    ? new RevocationList({
        url: revocationsUrl,
        logger,
        intervalMs: config.AUTH_REVOCATIONS_INTERVAL_SECONDS * 1000,
        maxStalenessMs: config.AUTH_REVOCATIONS_MAX_STALENESS_SECONDS * 1000,
      })
    : undefined;
  if (!revocationList)
    logger.warn('no revocation list is configured: revoked tokens stay valid until they expire');
  const verifier = new TokenVerifier({
    keys,
    revocations: revocationList ?? noRevocations,
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    clockToleranceSeconds: config.AUTH_CLOCK_TOLERANCE_SECONDS,
  });
  return {
    verifier,
    keys,
    revocations: revocationList ?? noRevocations,
    revocationList,
    readiness: {
      tokenKeys: async () => {
        if (keys.hasKey()) return undefined;
        return (await keys.refresh())
          ? undefined
          : 'no token verification key (JWKS unreachable, none cached)';
      },
    },
    async start() {
      if (!(await keys.refresh())) logger.warn('token keys are not available yet; retrying on demand');
      jwks?.start();
      await revocationList?.start();
    },
    stop() {
      jwks?.stop();
      revocationList?.stop();
    },
  };
}
