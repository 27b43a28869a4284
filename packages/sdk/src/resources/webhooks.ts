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

  /** Sends a document's last event again. */
  async replay(clave: string): Promise<ResponseBody<'tenant.replayWebhook'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.replayWebhook'>>('tenant.replayWebhook', {
        body: { clave },
      })
    ).data;
  }
}
