// The budget of e-mails through the platform's SMTP server to addresses a document does not name
// (MAIL_RESEND_NEW_ADDRESS_LIMIT; docs/security.md, "The platform's SMTP server as a relay"). A resend is
// charged when it is asked for if the platform is then the tenant's server. One asked for while the tenant
// had a server of its own is charged by the job if the platform sends it after all (the tenant returned to
// it, `predeterminado`, while the e-mail waited for a retry): whose server sends is only known at each
// attempt. mail_messages.new_address_charged records the charge, so an e-mail is charged once (the job reads
// the flag with its inputs, mail-job-inputs.ts).
import type { ComprobanteView } from '@cr/pdf';
import type { Queryable } from '@cr/service-kit';
import { documentAddresses } from './mail-message';

/** Whether `recipients` name an address that is neither the document's receptor nor its copias (any case). */
export function namesNewAddress(
  view: ComprobanteView,
  copias: readonly string[] | null,
  recipients: readonly string[],
): boolean {
  const own = new Set(documentAddresses(view, copias).map((a) => a.toLowerCase()));
  return recipients.some((a) => !own.has(a.toLowerCase()));
}

export async function markNewAddressCharged(
  tx: Queryable,
  tenantId: string,
  messageId: string,
): Promise<void> {
  await tx.query('UPDATE mail_messages SET new_address_charged = true WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    messageId,
  ]);
}
