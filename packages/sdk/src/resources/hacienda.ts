// hacienda.*: lookups in Hacienda's public data through the tenant API.
import type { Transport } from '../transport';
import type { RequestBody, ResponseBody } from '../types';

export class HaciendaResource {
  constructor(private readonly transport: Transport) {}

  /** CABYS codes matching words, a prefix or a 13-digit code. */
  async cabys(
    name: string,
    options: Omit<RequestBody<'tenant.searchCabys'>, 'name'> = {},
  ): Promise<ResponseBody<'tenant.searchCabys'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.searchCabys'>>('tenant.searchCabys', {
        body: { ...options, name },
      })
    ).data;
  }

  /** An exoneration authorization, e.g. `AL-00020402-24`. */
  async exoneracion(
    exoneracion: RequestBody<'tenant.getExoneracion'>['exoneracion'],
  ): Promise<ResponseBody<'tenant.getExoneracion'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.getExoneracion'>>('tenant.getExoneracion', {
        body: { exoneracion },
      })
    ).data;
  }

  /** A taxpayer in Hacienda's registry: name, regime, activities. */
  async contribuyente(
    identificacion: RequestBody<'tenant.getContribuyente'>['identificacion'],
  ): Promise<ResponseBody<'tenant.getContribuyente'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.getContribuyente'>>('tenant.getContribuyente', {
        body: { identificacion },
      })
    ).data;
  }
}
