// The webhook routes (configurar, consultar, reenviar), mounted under the authenticated /api router.
import type { WebhookConfigResponse, WebhookConsultResponse, WebhookReplayResponse } from '@cr/contracts';
import type { RequestHandler, Router } from 'express';
import { configureWebhook } from '../../webhooks/configure-webhook';
import { getWebhook } from '../../webhooks/get-webhook';
import { replayWebhook } from '../../webhooks/replay-webhook';
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
  return async (_req, res) => {
    const data = await getWebhook(deps, { tenantId: res.locals.tenantId });
    const body: WebhookConsultResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}

function reenviarWebhook(deps: WebhookDeps): RequestHandler {
  return async (req, res) => {
    const replay = await replayWebhook(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: WebhookReplayResponse = {
      status: 'success',
      message: `event ${replay.eventId} queued for document ${replay.clave} (${replay.estado})`,
      data: { eventId: replay.eventId },
    };
    res.status(200).json(body);
  };
}

export function mountWebhookRoutes(api: Router, deps: WebhookDeps): void {
  api.post('/configurar/webhook', configurarWebhook(deps));
  api.post('/consultar/webhook', consultarWebhook(deps));
  api.post('/reenviar/webhook', reenviarWebhook(deps));
}
