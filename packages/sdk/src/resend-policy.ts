// Which operations the SDK may send again after the service may have received them. The tenant-api honours
// the Idempotency-Key on POST /api/enviar/items only (ADR 0008), so on any other route a repeat is a new
// request. Most of them may be repeated all the same: reads; writes that replace a whole setting with the
// body (issuer update, branding, SMTP server); a registration or upload that finds the same data already
// stored and answers as the first time; an answer to a received document, whose repeat (same number and
// body) answers as the first did; a logout of a token already revoked; and a login, whose repeat only
// issues a token nobody uses. The operations below may not: a repeat does the work a second time, or
// answers something else than the attempt whose answer was lost. The transport tries those again only
// when the failure proves the first attempt did nothing (retry.ts: failedBeforeSending, isRefusedBeforeWork;
// and a 503 not from an operation in MAY_WORK_BEFORE_503).
import type { OperationKey } from './generated/operations-map';

/** The operations a repeat would do twice, each with what the repeat does. */
export const NOT_REPEATABLE: Readonly<Partial<Record<OperationKey, string>>> = {
  'tenant.configureWebhook':
    'rotates the secret again: the secret the receiver holds stops signing at once, not after the 24 h overlap',
  'tenant.replayWebhook': 'queues another event, with a webhook-id of its own',
  'tenant.resendMail': 'queues another e-mail to the same recipients',
  'tenant.synchronizeReceivedDocuments':
    'finds stored what the first attempt imported and reports none of it, spending another synchronization of the window',
};

/** Whether the SDK may send `key` again after a failure that does not prove the service did nothing. */
export function isRepeatable(key: OperationKey): boolean {
  return NOT_REPEATABLE[key] === undefined;
}

/**
 * Of those, the ones whose 503 may come after their work began, so a 503 is not sent again either: a
 * synchronization takes a slot of the tenant's hourly window and only then asks Hacienda's IdP for a token;
 * when the IdP refuses the issuer's credentials (or its grant limit is reached) the 503 keeps the slot spent,
 * and a repeat would spend another for the same refusal.
 */
const MAY_WORK_BEFORE_503: ReadonlySet<OperationKey> = new Set(['tenant.synchronizeReceivedDocuments']);

/** Whether a 503 answer to `key` may come after the service began its work. */
export function mayWorkBefore503(key: OperationKey): boolean {
  return MAY_WORK_BEFORE_503.has(key);
}
