// webhooks.*: where the tenant's document events go, and replays.
import type { Transport } from '../transport';
import type { ResponseBody } from '../types';

export class WebhooksResource {
  constructor(private readonly transport: Transport) {}

  /** Sets the URL; the answer holds a new `whsec_…` secret (the previous one keeps signing for 24 h). */
  async configure(url: string): Promise<ResponseBody<'tenant.configureWebhook'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.configureWebhook'>>('tenant.configureWebhook', {
        body: { url },
      })
    ).data;
  }

  /** The configured URL and the latest deliveries. */
  async get(): Promise<ResponseBody<'tenant.getWebhook'>> {
    return (await this.transport.call<ResponseBody<'tenant.getWebhook'>>('tenant.getWebhook')).data;
  }

  /**
   * Queues a document's last event again, as a new event (`data.eventId`). `data.webhook` says whether it will
   * be delivered: `sin-url` (no URL configured) and `desactivado` (the receiver answered 410 Gone; saving the
   * URL again reactivates it) mean it will only be recorded as not delivered.
   */
  async replay(clave: string): Promise<ResponseBody<'tenant.replayWebhook'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.replayWebhook'>>('tenant.replayWebhook', {
        body: { clave },
      })
    ).data;
  }
}
