// Use case of POST /api/configurar/webhook: check the URL against the SSRF policy (shape now, and the
// addresses its host resolves to now; the delivery re-checks on every connection), then store it with a new
// whsec_ secret. Re-configuring rotates: the previous secret keeps signing for 24 h beside the new one.
import { WebhookConfigRequest } from '@cr/contracts';
import { AppError, parseBody } from '@cr/service-kit';
import { TargetRefusedError, checkTargetResolves, checkTargetUrl, generateWebhookSecret } from '@cr/webhooks';
import { withTenant } from '../db/with-tenant';
import { type WebhookDeps, targetPolicy } from './webhook-deps';
import { findEndpoint, upsertEndpoint } from './webhook-repository';
import { openWebhookSecret, sealWebhookSecret } from './webhook-secrets';

export interface ConfiguredWebhook {
  url: string;
  secret: string;
  rotated: boolean;
}

function refuse(reason: string): never {
  throw new AppError('bad_request', `url: ${reason}`, { details: [{ path: 'url', reason }] });
}

/** The URL as it will be called, or a 400 naming `url` and why. */
export async function checkWebhookUrl(deps: WebhookDeps, raw: string): Promise<string> {
  const policy = targetPolicy(deps.webhooks);
  let url: URL;
  try {
    url = checkTargetUrl(raw, policy);
  } catch (err) {
    if (err instanceof TargetRefusedError) refuse(err.message);
    throw err;
  }
  try {
    await checkTargetResolves(url, policy);
  } catch (err) {
    if (err instanceof TargetRefusedError)
      refuse('must not point to a private, loopback or reserved address');
    const code = (err as NodeJS.ErrnoException).code;
    refuse(`host ${url.hostname} could not be resolved${code ? ` (${code})` : ''}`);
  }
  return url.href;
}

export async function configureWebhook(
  deps: WebhookDeps,
  input: { tenantId: string; body: unknown },
): Promise<ConfiguredWebhook> {
  const { url: raw } = parseBody(WebhookConfigRequest, input.body);
  const url = await checkWebhookUrl(deps, raw);
  const secret = generateWebhookSecret();
  const now = deps.now();
  const { tenantId } = input;
  const rotated = await withTenant(deps.db, tenantId, async (tx) => {
    const existing = await findEndpoint(tx, tenantId, { forUpdate: true });
    // The secret being replaced keeps signing during the overlap; re-sealed under the current key and bound
    // to the `previous` column.
    const previous = existing
      ? sealWebhookSecret(
          deps.secrets,
          tenantId,
          'previous_secret',
          openWebhookSecret(deps.secrets, tenantId, 'secret', existing.secret_sealed),
        )
      : null;
    await upsertEndpoint(tx, tenantId, {
      url,
      secretSealed: sealWebhookSecret(deps.secrets, tenantId, 'secret', secret),
      previousSecretSealed: previous,
      secretsKeyId: deps.secrets.currentKeyId,
      rotatedAt: existing ? now : null,
      now,
    });
    return existing !== undefined;
  });
  deps.logger.info(rotated ? 'webhook reconfigured; secret rotated' : 'webhook configured', {
    tenantId,
    host: new URL(url).host,
  });
  return { url, secret, rotated };
}
