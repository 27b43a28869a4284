// Sealing of a tenant's webhook secrets. Each ciphertext is bound (AES-GCM associated data) to its tenant and
// column, so a sealed value copied into another tenant's row, or from `previous` to `current`, does not open.
import type { SecretBox } from '@cr/service-kit';
import { ROTATION_OVERLAP_MS } from './webhook-deps';
import type { WebhookEndpointRow } from './webhook-repository';

type SecretColumn = 'secret' | 'previous_secret';

function context(tenantId: string, column: SecretColumn): string {
  return `tenant-api:webhook:${tenantId}:${column}`;
}

export function sealWebhookSecret(
  box: SecretBox,
  tenantId: string,
  column: SecretColumn,
  secret: string,
): string {
  return box.seal(secret, context(tenantId, column));
}

export function openWebhookSecret(
  box: SecretBox,
  tenantId: string,
  column: SecretColumn,
  sealed: string,
): string {
  return box.openText(sealed, context(tenantId, column));
}

/** End of the dual-signature window, if a rotation happened. */
export function overlapEnd(endpoint: Pick<WebhookEndpointRow, 'rotated_at'>): Date | undefined {
  return endpoint.rotated_at
    ? new Date(new Date(endpoint.rotated_at).getTime() + ROTATION_OVERLAP_MS)
    : undefined;
}

/** The secrets that sign at `now`, newest first: the current one, plus the previous for 24 h after a rotation. */
export function signingSecrets(box: SecretBox, endpoint: WebhookEndpointRow, now: Date): string[] {
  const secrets = [openWebhookSecret(box, endpoint.tenant_id, 'secret', endpoint.secret_sealed)];
  const until = overlapEnd(endpoint);
  if (endpoint.previous_secret_sealed && until && now.getTime() < until.getTime()) {
    secrets.push(
      openWebhookSecret(box, endpoint.tenant_id, 'previous_secret', endpoint.previous_secret_sealed),
    );
  }
  return secrets;
}
