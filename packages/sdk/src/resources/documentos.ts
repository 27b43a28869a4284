// documentos.*: submission, state, Hacienda's verdict and the files of a document.
import { WaitTimeoutError } from '../errors';
import { sleep } from '../retry';
import type { Transport } from '../transport';
import type { Estado, RequestBody, ResponseBody } from '../types';

export interface EnviarOptions {
  /**
   * Sent as Idempotency-Key: the same key with the same body returns the first answer (24 h). Default: a
   * new key per call, reused by the SDK's own retries of that call.
   */
  idempotencyKey?: string;
}

export interface WaitProgress {
  estado: Estado;
  elapsedMs: number;
  checks: number;
}

export interface WaitOptions {
  /** Give up after this long (WaitTimeoutError). Default 120 s. */
  timeoutMs?: number;
  /** First pause between checks; it grows to `maxIntervalMs`. Default 500 ms. */
  intervalMs?: number;
  /** Default 5 s. */
  maxIntervalMs?: number;
  onProgress?: (progress: WaitProgress) => void;
  signal?: AbortSignal;
}

export interface ListarDocumentosFiltro {
  /** 1 invoice, 2 debit note, 3 credit note, 4 ticket, 8 purchase, 9 export, 10 payment receipt; 5, 6, 7 answers to received documents. */
  tipo?: '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '10';
  estado?: Estado;
  /** YYYY-MM-DD, emission date in Costa Rica. */
  desde?: string;
  hasta?: string;
  /** The receptor's identification number. */
  receptor?: string;
  /** Text in the clave, consecutivo, receptor number or numeroReferencia. */
  q?: string;
  /** The `cursor` of the previous page (null, as the last page gives it, is the first page). */
  cursor?: string | null;
  limite?: number;
}

export const FINAL_ESTADOS: readonly Estado[] = ['aceptado', 'rechazado', 'error'];

export class DocumentosResource {
  constructor(private readonly transport: Transport) {}

  /** Signs the document and submits it to Hacienda; the answer carries its clave. */
  async enviar(
    documento: RequestBody<'tenant.submitDocument'>,
    options: EnviarOptions = {},
  ): Promise<ResponseBody<'tenant.submitDocument'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.submitDocument'>>('tenant.submitDocument', {
        body: documento,
        ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
      })
    ).data;
  }

  /** One page of the tenant's documents, newest first; pass the answer's `cursor` for the next. */
  async listar(filtro: ListarDocumentosFiltro = {}): Promise<ResponseBody<'tenant.listDocuments'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.listDocuments'>>('tenant.listDocuments', {
        query: { ...filtro },
      })
    ).data;
  }

  /** State, history and Hacienda's message of one document. */
  async consultar(clave: string): Promise<ResponseBody<'tenant.getDocument'>> {
    return (
      await this.transport.call<ResponseBody<'tenant.getDocument'>>('tenant.getDocument', { body: { clave } })
    ).data;
  }

  /** Polls until Hacienda's final answer (aceptado, rechazado or error) and returns the document then. */
  async esperarVeredicto(
    clave: string,
    options: WaitOptions = {},
  ): Promise<ResponseBody<'tenant.getDocument'>> {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? 120_000;
    const maxInterval = options.maxIntervalMs ?? 5_000;
    let interval = options.intervalMs ?? 500;
    for (let checks = 1; ; checks++) {
      const answer = await this.consultar(clave);
      const elapsedMs = Date.now() - started;
      options.onProgress?.({ estado: answer.data.estado, elapsedMs, checks });
      if (FINAL_ESTADOS.includes(answer.data.estado)) return answer;
      if (elapsedMs + interval > timeoutMs)
        throw new WaitTimeoutError(
          'wait_timeout',
          `document ${clave} is still ${answer.data.estado} after ${Math.round(elapsedMs / 1000)} s`,
        );
      await sleep(interval, options.signal);
      interval = Math.min(maxInterval, Math.round(interval * 1.5));
    }
  }

  /** The signed comprobante, exactly as sent to Hacienda. */
  async descargarXml(clave: string): Promise<string> {
    return (await this.transport.call<string>('tenant.downloadDocumentXml', { params: { clave } })).data;
  }

  /** Hacienda's signed answer (MensajeHacienda), once it has given its final verdict. */
  async descargarRespuesta(clave: string): Promise<string> {
    return (await this.transport.call<string>('tenant.downloadHaciendaResponse', { params: { clave } })).data;
  }

  /** The printable PDF (`carta` letter or `tiquete` 80 mm; default: tiquete for a ticket, carta otherwise). */
  async descargarPdf(clave: string, formato?: 'carta' | 'tiquete'): Promise<Uint8Array> {
    return (
      await this.transport.call<Uint8Array>('tenant.downloadDocumentPdf', {
        params: { clave },
        query: { formato },
      })
    ).data;
  }
}
