// entrega.*: delivery to the receptor: the branding of the PDFs, the SMTP server of the e-mails, resends.
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

  /**
   * Sets the tenant's own SMTP server for the e-mails to its receptors (the password is stored sealed and
   * never shown again), or `{predeterminado: true}` to go back to the platform's.
   */
  async configurarCorreo(
    correo: RequestBody<'tenant.configureMail'>,
  ): Promise<ResponseBody<'tenant.configureMail'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.configureMail'>>('tenant.configureMail', {
        body: correo,
      })
    ).data;
  }

  /** Whose SMTP server sends the tenant's e-mails (never the password). */
  async consultarCorreo(): Promise<ResponseBody<'tenant.getMail'>> {
    return (await this.transport.call<ResponseBody<'tenant.getMail'>>('tenant.getMail')).data;
  }

  /** Sends an accepted document's e-mail again, to `destinatarios` or to the receptor and the copias. */
  async reenviarCorreo(clave: string, destinatarios?: string[]): Promise<ResponseBody<'tenant.resendMail'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.resendMail'>>('tenant.resendMail', {
        body: { clave, ...(destinatarios ? { destinatarios } : {}) },
      })
    ).data;
  }
}
