// Shared step of the e-mail tests: an accepted document's e-mail raised as the follow-up raises it (one
// deduplicated job per acceptance), then the worker run until nothing is due (its first attempt).
import { enqueue } from '@cr/jobs';
import { MAIL_QUEUE, type MailJobPayload, newMessageId } from '../../src/delivery/mail-deps';
import { insertTestDocument } from './documents';
import type { TestApp } from './test-app';
import { drain } from './webhook-helpers';

export interface RaisedMail {
  clave: string;
  documentId: string;
  /** The e-mail job's key. */
  key: string;
  messageId: string;
}

export async function raiseAcceptedMail(ctx: TestApp, tenantId: string): Promise<RaisedMail> {
  const doc = await insertTestDocument(ctx.db, tenantId, { estado: 'aceptado' });
  const payload: MailJobPayload = {
    tenantId,
    documentId: doc.id,
    messageId: newMessageId(),
    reason: 'aceptado',
  };
  const key = `mail:${doc.id}:aceptado`;
  await enqueue(ctx.db, { tenant: tenantId, queue: MAIL_QUEUE, key, payload });
  await drain(ctx);
  return { clave: doc.clave, documentId: doc.id, key, messageId: payload.messageId };
}
