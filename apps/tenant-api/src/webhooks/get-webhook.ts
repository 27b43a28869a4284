// Use case of POST /api/consultar/webhook: the endpoint's public state and its latest delivery attempts.
// Never the secret.
import type { WebhookConsultResponse } from '@cr/contracts';
import { AppError, parseNoFields } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import type { WebhookDeps } from './webhook-deps';
import { findEndpoint, listRecentDeliveries } from './webhook-repository';
import { overlapEnd } from './webhook-secrets';

export const RECENT_DELIVERIES = 20;

const iso = (v: Date | string) => new Date(v).toISOString();

export async function getWebhook(
  deps: WebhookDeps,
  input: { tenantId: string; body?: unknown },
): Promise<WebhookConsultResponse['data']> {
  const { tenantId } = input;
  parseNoFields(input.body);
  return withTenant(deps.db, tenantId, async (tx) => {
    const endpoint = await findEndpoint(tx, tenantId);
    if (!endpoint) {
      throw new AppError('not_found', 'no webhook is configured; use /api/configurar/webhook');
    }
    const deliveries = await listRecentDeliveries(tx, tenantId, RECENT_DELIVERIES);
    const until = overlapEnd(endpoint);
    const data: WebhookConsultResponse['data'] = {
      url: endpoint.url,
      activo: endpoint.active,
      entregas: deliveries.map((d) => ({
        eventId: d.event_id,
        intento: Number(d.attempt),
        url: d.url,
        status: d.status === null ? null : Number(d.status),
        latenciaMs: d.latency_ms === null ? null : Number(d.latency_ms),
        error: d.error,
        fecha: iso(d.created_at),
        clave: d.clave,
      })),
    };
    if (endpoint.rotated_at) data.secretoRotadoEn = iso(endpoint.rotated_at);
    if (until && until.getTime() > deps.now().getTime()) data.firmaDobleHasta = until.toISOString();
    if (endpoint.disabled_at) data.desactivadoEn = iso(endpoint.disabled_at);
    if (endpoint.disabled_reason) data.motivoDesactivacion = endpoint.disabled_reason;
    return data;
  });
}
