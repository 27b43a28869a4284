// Use case of POST /api/reenviar/correo: a new e-mail of an accepted document, to the given destinatarios or
// by default to the receptor and the request's copias; recorded and queued in one transaction, delivered by
// the same job as the first one. A tenant may resend a limited number of times per window (429 with
// Retry-After), and its e-mails wait in its own lane: an SMTP server that never answers holds a delivery slot
// for MAIL_TIMEOUT_MS on each attempt, so unlimited resends would hold every other tenant's e-mails. Resends
// to addresses the document does not name, through the platform's server, have a daily budget of their own
// (new-address-budget.ts: a resend the tenant's own server was to send is charged if the platform sends it).
import { CorreoResendRequest } from '@cr/contracts';
import { enqueue } from '@cr/jobs';
import { AppError, parseBody } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import { type TenantLimiter, takeTenantSlot } from '../tenancy/tenant-rate-limit';
import { comprobanteView } from './comprobante-views';
import { MAIL_QUEUE, type MailDeps, type MailJobPayload, RECEIVER_MESSAGES, newMessageId } from './mail-deps';
import { defaultRecipients } from './mail-message';
import { findDocumentForMail, insertMailMessage } from './mail-repository';
import { markNewAddressCharged, namesNewAddress } from './new-address-budget';
import { findMailSettings } from './mail-settings-repository';

export interface ResendMailDeps extends MailDeps {
  /** POST /api/reenviar/correo calls per tenant (MAIL_RESEND_RATE_LIMIT per …_WINDOW_SECONDS). */
  mailResendLimiter: TenantLimiter;
  /**
   * Resends through the platform's SMTP server that name an address other than the document's receptor and
   * copias (MAIL_RESEND_NEW_ADDRESS_LIMIT per …_WINDOW_SECONDS, a day by default). The e-mail job takes from
   * it too (MailJobDeps), when the platform sends such an e-mail that was not charged here.
   */
  mailNewAddressLimiter: TenantLimiter;
}

interface ResendPlan {
  documentId: string;
  recipients: string[];
  /** The resend names an address the document does not, and goes out through the platform's server. */
  newAddressOnPlatform: boolean;
}

/** Reads and checks the document (and whose server will send): nothing is written. */
async function planResend(
  deps: ResendMailDeps,
  tenantId: string,
  clave: string,
  destinatarios: string[] | undefined,
): Promise<ResendPlan> {
  return withTenant(deps.db, tenantId, async (tx) => {
    const doc = await findDocumentForMail(tx, tenantId, { clave });
    if (!doc) throw new AppError('not_found', `clave: document ${clave} not found`);
    if (RECEIVER_MESSAGES.includes(doc.tipo_doc)) {
      throw new AppError('conflict', `clave: ${clave} is a receiver's message; those are not e-mailed`);
    }
    if (doc.estado !== 'aceptado') {
      throw new AppError(
        'conflict',
        `clave: document ${clave} is not accepted (estado ${doc.estado}); only accepted documents are e-mailed`,
      );
    }
    const view = comprobanteView(doc.xml);
    const recipients = destinatarios ?? defaultRecipients(view, doc.correo_copias);
    if (recipients.length === 0) {
      throw new AppError(
        'conflict',
        `clave: the receptor of ${clave} has no correoElectronico; name the destinatarios`,
      );
    }
    const newAddressOnPlatform =
      namesNewAddress(view, doc.correo_copias, recipients) && !(await findMailSettings(tx, tenantId));
    return { documentId: doc.id, recipients, newAddressOnPlatform };
  });
}

export async function resendMail(
  deps: ResendMailDeps,
  input: { tenantId: string; body: unknown },
): Promise<{ envioId: string; clave: string }> {
  const { clave, destinatarios } = parseBody(CorreoResendRequest, input.body);
  const { tenantId } = input;
  await takeTenantSlot(deps.db, deps.mailResendLimiter, tenantId, 'e-mail resends');
  const plan = await planResend(deps, tenantId, clave, destinatarios);
  // The platform's server sends for every tenant: addresses a tenant picks freely would make it a relay
  // whose reputation (and every tenant's e-mail) one tenant could spend. Its own server is its own affair.
  if (plan.newAddressOnPlatform) {
    await takeTenantSlot(
      deps.db,
      deps.mailNewAddressLimiter,
      tenantId,
      "e-mail resends to addresses the document does not name, through the platform's server",
    );
  }
  const envioId = newMessageId();
  await withTenant(deps.db, tenantId, async (tx) => {
    await insertMailMessage(
      tx,
      tenantId,
      { id: envioId, documentId: plan.documentId, reason: 'reenvio', recipients: plan.recipients },
      deps.now(),
    );
    // Charged now: the job does not charge it again, whichever server sends it.
    if (plan.newAddressOnPlatform) await markNewAddressCharged(tx, tenantId, envioId);
    const payload: MailJobPayload = {
      tenantId,
      documentId: plan.documentId,
      messageId: envioId,
      reason: 'reenvio',
    };
    await enqueue(tx, { queue: MAIL_QUEUE, tenant: tenantId, key: `mail:${envioId}`, payload });
  });
  deps.logger.info('e-mail resend requested', { tenantId, clave, envioId });
  return { envioId, clave };
}
