// entrega.*: delivery to the receptor: the branding of the PDFs.
import type { Transport } from '../transport';
import type { RequestBody, ResponseBody } from '../types';

export class EntregaResource {
  constructor(private readonly transport: Transport) {}

  /** Replaces the logo (PNG/JPEG, base64) and footer of the tenant's PDFs; what is left out is removed. */
  async configurarMarca(
    marca: RequestBody<'tenant.configureBranding'>,
  ): Promise<ResponseBody<'tenant.configureBranding'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.configureBranding'>>('tenant.configureBranding', {
        body: marca,
      })
    ).data;
  }
}
