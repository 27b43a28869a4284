// recepcion.*: documents suppliers issue to the tenant's issuers: receive and check them, list them by
// deadline, answer them (MensajeReceptor: 1 accept, 2 partial, 3 reject) and import them from Hacienda.
import type { Transport } from '../transport';
import type { RequestBody, ResponseBody } from '../types';

export interface ListarRecibidosFiltro {
  estado?: 'pendiente' | 'respondiendo' | 'respondido';
  /** YYYY-MM-DD, emission date in Costa Rica. */
  desde?: string;
  hasta?: string;
  /** The `cursor` of the previous page (null, as the last page gives it, is the first page). */
  cursor?: string | null;
  limite?: number;
}

export class RecepcionResource {
  constructor(private readonly transport: Transport) {}

  /** Checks and stores a supplier's signed XML (Base64) for one of the tenant's issuers. */
  async recibir(
    documento: RequestBody<'tenant.receiveDocument'>,
  ): Promise<ResponseBody<'tenant.receiveDocument'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.receiveDocument'>>('tenant.receiveDocument', {
        body: documento,
      })
    ).data;
  }

  /** One page of received documents, unanswered first by deadline. */
  async listar(filtro: ListarRecibidosFiltro = {}): Promise<ResponseBody<'tenant.listReceivedDocuments'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.listReceivedDocuments'>>(
        'tenant.listReceivedDocuments',
        {
          query: { ...filtro },
        },
      )
    ).data;
  }

  async consultar(clave: string): Promise<ResponseBody<'tenant.getReceivedDocument'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.getReceivedDocument'>>('tenant.getReceivedDocument', {
        params: { clave },
      })
    ).data;
  }

  /** The supplier's signed XML, as received. */
  async descargarXml(clave: string): Promise<string> {
    return (await this.transport.call<string>('tenant.downloadReceivedXml', { params: { clave } })).data;
  }

  /** Hacienda's answer to the supplier's document, when it was supplied with it. */
  async descargarRespuestaHacienda(clave: string): Promise<string> {
    return (await this.transport.call<string>('tenant.downloadReceivedHaciendaAnswer', { params: { clave } }))
      .data;
  }

  /** Accepts, partially accepts or rejects the document; Hacienda's verdict follows by webhook. */
  async responder(
    clave: string,
    respuesta: RequestBody<'tenant.answerReceivedDocument'>,
  ): Promise<ResponseBody<'tenant.answerReceivedDocument'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.answerReceivedDocument'>>(
        'tenant.answerReceivedDocument',
        {
          params: { clave },
          body: respuesta,
        },
      )
    ).data;
  }

  /** Imports what Hacienda lists as issued to the issuer and is not stored yet. */
  async sincronizar(receptor: string): Promise<ResponseBody<'tenant.synchronizeReceivedDocuments'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.synchronizeReceivedDocuments'>>(
        'tenant.synchronizeReceivedDocuments',
        { body: { receptor } },
      )
    ).data;
  }
}
