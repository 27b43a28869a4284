// What the webhook use cases and the delivery job need, built once by main.ts (and the test app).
import type { Db, Logger, SecretBox } from '@cr/service-kit';
import type { TenantLimiter } from '../tenancy/tenant-rate-limit';
import type { TargetPolicy } from '@cr/webhooks';

export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: private, loopback and reserved targets (and http to loopback) allowed. */
  allowPrivateTargets: boolean;
  /** WEBHOOK_TIMEOUT_MS: a delivery succeeds only with a 2xx within this time. */
  timeoutMs: number;
}

export interface WebhookDeps {
  db: Db;
  secrets: SecretBox;
  logger: Logger;
  now: () => Date;
  webhooks: WebhookSettings;
  /** POST /api/reenviar/webhook calls per tenant (WEBHOOK_REPLAY_RATE_LIMIT per …_WINDOW_SECONDS). */
  replayLimiter: TenantLimiter;
  /** Jitter source of the retry schedule (tests pin it). */
  random?: () => number;
}

/** The SSRF policy for a tenant-supplied URL: one switch opens private targets and http to loopback. */
export function targetPolicy(settings: WebhookSettings): TargetPolicy {
  return {
    allowPrivateTargets: settings.allowPrivateTargets,
    allowHttpLoopback: settings.allowPrivateTargets,
  };
}

/** How long after a rotation the previous secret still signs. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
