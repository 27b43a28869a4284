// The webhook routes (configurar, consultar, reenviar), mounted under the authenticated /api router.
import type { WebhookConfigResponse, WebhookConsultResponse, WebhookReplayResponse } from '@cr/contracts';
import type { RequestHandler, Router } from 'express';
import { configureWebhook } from '../../webhooks/configure-webhook';
import { getWebhook } from '../../webhooks/get-webhook';
import { type ReplayedWebhook, replayWebhook } from '../../webhooks/replay-webhook';
import type { WebhookDeps } from '../../webhooks/webhook-deps';

function configurarWebhook(deps: WebhookDeps): RequestHandler {
  return async (req, res) => {
    const { url, secret } = await configureWebhook(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: WebhookConfigResponse = { status: 'success', data: { url, secret } };
    // The secret is shown once; keep it out of any cache on the way.
    res.set('Cache-Control', 'no-store').status(200).json(body);
  };
}

function consultarWebhook(deps: WebhookDeps): RequestHandler {
  return async (req, res) => {
    const data = await getWebhook(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: WebhookConsultResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}

function reenviarWebhook(deps: WebhookDeps): RequestHandler {
  return async (req, res) => {
    const replay = await replayWebhook(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: WebhookReplayResponse = {
      status: 'success',
      message: replayMessage(replay),
      data: replay.data,
    };
    res.status(200).json(body);
  };
}

/** What was queued and, when the event will go nowhere, why and what changes that. */
function replayMessage({ clave, estado, data }: ReplayedWebhook): string {
  const queued = `event ${data.eventId} queued for document ${clave} (${estado})`;
  switch (data.webhook) {
    case 'activo':
      return queued;
    case 'sin-url':
      return `${queued}; no webhook URL is configured, so it will be recorded as not delivered: set one with POST /api/configurar/webhook`;
    case 'desactivado': {
      const on = data.desactivadoEn ? ` on ${data.desactivadoEn}` : '';
      const why = data.motivoDesactivacion ? ` (${data.motivoDesactivacion})` : '';
      // Saving the URL re-enables the endpoint (upsertEndpoint), and the job reads it when it runs.
      return `${queued}; the webhook endpoint was deactivated${on}${why}, so it will be recorded as not delivered: saving the URL again (POST /api/configurar/webhook) reactivates it`;
    }
  }
}

export function mountWebhookRoutes(api: Router, deps: WebhookDeps): void {
  api.post('/configurar/webhook', configurarWebhook(deps));
  api.post('/consultar/webhook', consultarWebhook(deps));
  api.post('/reenviar/webhook', reenviarWebhook(deps));
}
