// POST /hacienda/callback/{token}: Hacienda's notice that a document's processing finished. No JWT and no
// tenant host (Hacienda calls PUBLIC_URL, e.g. callbacks.api.<domain>): the unguessable per-document token
// is the only key, and its body is never read nor trusted; the callback only brings the status check
// forward (or starts it), and the GET that follows decides. Mounted before tenant resolution and the JSON parser.
import { enqueue, reschedule } from '@cr/jobs';
import { AppError, type Db } from '@cr/service-kit';
import { Router } from 'express';
import { unsafeTakeCallback } from '../documents/document-repository';
import { type DocumentJobPayload, STATUS_QUEUE, callbackTokenHash } from '../documents/submit-document';
import { STATUS_KEY_PREFIX, statusJobKey } from './record-transitions';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function haciendaCallbackRouter(deps: { db: Db }): Router {
  const router = Router();
  router.post('/hacienda/callback/:token', async (req, res) => {
    const token = String(req.params.token);
    const found = TOKEN.test(token)
      ? await unsafeTakeCallback(deps.db, callbackTokenHash(token), STATUS_KEY_PREFIX)
      : undefined;
    if (!found) throw new AppError('not_found', 'unknown callback');
    // An enviado document's status check was brought forward by the lookup itself.
    const key = statusJobKey(found.id);
    if (found.estado === 'pendiente') {
      // Hacienda answered before our submission job recorded `enviado`: the follow-up starts now (it waits
      // while the document is still pendiente) and recordEnviado brings it forward once more.
      const payload: DocumentJobPayload = { tenantId: found.tenantId, documentId: found.id };
      const added = await enqueue(deps.db, { queue: STATUS_QUEUE, tenant: found.tenantId, key, payload });
      if (!added.created) await reschedule(deps.db, { key });
    }
    res.status(200).json({ status: 'success', message: 'status check scheduled' });
  });
  return router;
}
