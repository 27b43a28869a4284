// emisores.*: the tenant's issuers, with their Hacienda credentials and signing key.
import type { Transport } from '../transport';
import type { RequestBody, ResponseBody } from '../types';

export class EmisoresResource {
  constructor(private readonly transport: Transport) {}

  /** Registers an issuer (`certificadoHacienda` is the .p12 in base64, `claveHacienda` the password in base64). */
  async register(
    emisor: RequestBody<'tenant.registerIssuer'>,
  ): Promise<ResponseBody<'tenant.registerIssuer'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.registerIssuer'>>('tenant.registerIssuer', {
        body: emisor,
      })
    ).data;
  }

  /** Replaces a registered issuer's data. */
  async update(emisor: RequestBody<'tenant.updateIssuer'>): Promise<ResponseBody<'tenant.updateIssuer'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.updateIssuer'>>('tenant.updateIssuer', { body: emisor })
    ).data;
  }

  /** An issuer's public data and its certificate's expiry. */
  async get(
    identificacion: RequestBody<'tenant.getIssuer'>['identificacion'],
  ): Promise<ResponseBody<'tenant.getIssuer'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.getIssuer'>>('tenant.getIssuer', {
        body: { identificacion },
      })
    ).data;
  }

  /** Every issuer of the tenant, with the days its certificate has left (`porVencer` within 30 days). */
  async listar(): Promise<ResponseBody<'tenant.listIssuers'>> {
    return (await this.transport.call<ResponseBody<'tenant.listIssuers'>>('tenant.listIssuers', {})).data;
  }
}
