// Use case of POST /api/reenviar/correo: a new e-mail of an accepted document, to the given destinatarios or
// by default to the receptor and the request's copias; recorded and queued in one transaction, delivered by
// the same job as the first one.
import { CorreoResendRequest } from '@cr/contracts';
import { enqueue } from '@cr/jobs';
import { AppError, parseBody } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import { comprobanteView } from './comprobante-views';
import { defaultRecipients } from './mail-message';
import { MAIL_QUEUE, type MailDeps, type MailJobPayload, RECEIVER_MESSAGES, newMessageId } from './mail-deps';
import { findDocumentForMail, insertMailMessage } from './mail-repository';

export async function resendMail(
  deps: MailDeps,
  input: { tenantId: string; body: unknown },
): Promise<{ envioId: string; clave: string }> {
  const { clave, destinatarios } = parseBody(CorreoResendRequest, input.body);
  const { tenantId } = input;
  const envioId = newMessageId();
  await withTenant(deps.db, tenantId, async (tx) => {
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
    const recipients = destinatarios ?? defaultRecipients(comprobanteView(doc.xml), doc.correo_copias);
    if (recipients.length === 0) {
      throw new AppError(
        'conflict',
        `clave: the receptor of ${clave} has no correoElectronico; name the destinatarios`,
      );
    }
    await insertMailMessage(
      tx,
      tenantId,
      { id: envioId, documentId: doc.id, reason: 'reenvio', recipients },
      deps.now(),
    );
    const payload: MailJobPayload = { tenantId, documentId: doc.id, messageId: envioId, reason: 'reenvio' };
    await enqueue(tx, { queue: MAIL_QUEUE, key: `mail:${envioId}`, payload });
  });
  deps.logger.info('e-mail resend requested', { tenantId, clave, envioId });
  return { envioId, clave };
}
