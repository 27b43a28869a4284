// Hacienda's recepción API (REFERENCE §4): submit a signed comprobante and read its status. Every answer
// is classified into a typed outcome; nothing is thrown for an HTTP status, a timeout or a dropped
// connection, so the worker can switch on `kind`.
import type { AxiosInstance, AxiosResponse } from 'axios';
import {
  classifyTransportError,
  createHttp,
  header,
  parseRateLimit,
  parseRetryAfterMs,
  type RateLimitInfo,
  type TransportFailure,
} from './http';
import { type Clock, realClock } from './limits';

export interface Identificacion {
  /** "01".."04" (≤ 2). */
  tipoIdentificacion: string;
  /** ≤ 12 per the API's schema. */
  numeroIdentificacion: string;
}

export interface SubmitRequest {
  /** Bearer access token from the IdP. */
  token: string;
  clave: string;
  /** The same instant as FechaEmision, RFC 3339 (e.g. 2026-06-30T12:29:12-06:00). */
  fecha: string;
  emisor: Identificacion;
  /** Only when the document has an identified receptor (omit for a TE without one). */
  receptor?: Identificacion;
  /** Base64 of the UTF-8 bytes of the signed XML. */
  comprobanteXml: string;
  callbackUrl?: string;
  /** Only for a MensajeReceptor. */
  consecutivoReceptor?: string;
}

interface Meta {
  rateLimit?: RateLimitInfo;
}

/** Failures shared by submit and status. */
export type RecepcionFailure =
  | ({ kind: 'unauthorized'; status: number; cause?: string } & Meta)
  | ({ kind: 'rateLimited'; status: 429; retryAfterMs?: number } & Meta)
  | ({ kind: 'serverError'; status: number; cause?: string } & Meta)
  | ({ kind: 'unexpected'; status: number; cause?: string } & Meta)
  | TransportFailure;

export type SubmitOutcome =
  /** Queued by Hacienda (201/202); validation is asynchronous: follow with `status`. */
  | ({ kind: 'accepted'; status: number; location?: string } & Meta)
  /** 400 "… ya fue recibido": the document is already there; follow it as accepted. */
  | ({ kind: 'alreadyReceived'; status: 400; cause: string } & Meta)
  /** Other 400: the request was refused; `cause` is X-Error-Cause. */
  | ({ kind: 'rejected'; status: 400; cause?: string; validationException: boolean; body?: unknown } & Meta)
  | RecepcionFailure;

export type IndEstado = 'recibido' | 'procesando' | 'aceptado' | 'rechazado' | 'error';

export interface RecepcionStatus {
  clave: string;
  fecha?: string;
  /** Lower-cased; Hacienda's docs use upper case, real answers lower case. */
  indEstado: IndEstado | string;
  /** Base64 MensajeHacienda, once processing finished. */
  respuestaXml?: string;
  callbackUrl?: string;
}

export type StatusOutcome =
  | ({ kind: 'found' } & RecepcionStatus & Meta)
  /** 404: Hacienda does not know the clave. */
  | ({ kind: 'notFound'; status: 404; cause?: string } & Meta)
  /** 400: e.g. a malformed clave. */
  | ({ kind: 'invalid'; status: 400; cause?: string } & Meta)
  | RecepcionFailure;

export interface ComprobanteSummary {
  clave: string;
  fecha?: string;
  emisor?: { tipoIdentificacion?: string; numeroIdentificacion?: string; nombre?: string };
  receptor?: { tipoIdentificacion?: string; numeroIdentificacion?: string; nombre?: string };
}

export type ComprobantesPageOutcome =
  | ({ kind: 'page'; items: ComprobanteSummary[]; partial: boolean; total?: number } & Meta)
  | ({ kind: 'invalid'; status: 400; cause?: string } & Meta)
  | RecepcionFailure;

export type ComprobanteOutcome =
  /** `comprobanteXml` (Base64) only where the service returns it (the local sandbox does). */
  | ({ kind: 'found'; clave: string; comprobanteXml?: string } & Meta)
  | ({ kind: 'notFound'; status: 404; cause?: string } & Meta)
  | ({ kind: 'invalid'; status: 400; cause?: string } & Meta)
  | RecepcionFailure;

const FINAL = new Set(['aceptado', 'rechazado', 'error']);

/** `aceptado`, `rechazado` and `error` end the follow-up. */
export function isFinalEstado(estado: string): boolean {
  return FINAL.has(estado.toLowerCase());
}

/** Worth trying again later, unchanged (after `invalidate` for `unauthorized`). */
export function isTransient(outcome: { kind: string }): boolean {
  return ['timeout', 'network', 'serverError', 'rateLimited'].includes(outcome.kind);
}

/**
 * Reads a status body: the GET resource (`ind-estado`, `respuesta-xml`) or the callback, whose documented
 * example spells `indEstado`/`respuestaXml` (REFERENCE §4.4). Returns undefined for anything else.
 */
export function parseRecepcionStatus(body: unknown): RecepcionStatus | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const pick = (...names: string[]) => {
    for (const n of names) if (typeof b[n] === 'string' && b[n] !== '') return b[n] as string;
    return undefined;
  };
  const clave = pick('clave');
  const estado = pick('ind-estado', 'indEstado');
  if (!clave || !estado) return undefined;
  const fecha = pick('fecha');
  const respuestaXml = pick('respuesta-xml', 'respuestaXml');
  const callbackUrl = pick('callbackUrl');
  return {
    clave,
    indEstado: estado.toLowerCase(),
    ...(fecha ? { fecha } : {}),
    ...(respuestaXml ? { respuestaXml } : {}),
    ...(callbackUrl ? { callbackUrl } : {}),
  };
}

const ALREADY_RECEIVED = /ya\s+fue\s+recibid/i;

export interface RecepcionClientOptions {
  /** Base URL ending in /recepcion/v1 (HACIENDA_RECEPCION_URL_TEST / _PROD). */
  baseUrl: string;
  /** The whole request, connection to last byte of the answer (`createHttp`). */
  timeoutMs?: number;
  clock?: Clock;
}

export class RecepcionClient {
  private readonly http: AxiosInstance;
  private readonly clock: Clock;

  constructor(options: RecepcionClientOptions) {
    this.http = createHttp(options.baseUrl, options.timeoutMs ?? 30_000, 'recepcion');
    this.clock = options.clock ?? realClock;
  }

  async submit(request: SubmitRequest): Promise<SubmitOutcome> {
    const body = {
      clave: request.clave,
      fecha: request.fecha,
      emisor: {
        tipoIdentificacion: request.emisor.tipoIdentificacion,
        numeroIdentificacion: request.emisor.numeroIdentificacion,
      },
      ...(request.receptor
        ? {
            receptor: {
              tipoIdentificacion: request.receptor.tipoIdentificacion,
              numeroIdentificacion: request.receptor.numeroIdentificacion,
            },
          }
        : {}),
      ...(request.callbackUrl ? { callbackUrl: request.callbackUrl } : {}),
      ...(request.consecutivoReceptor ? { consecutivoReceptor: request.consecutivoReceptor } : {}),
      comprobanteXml: request.comprobanteXml,
    };
    let res: AxiosResponse;
    try {
      res = await this.http.post('/recepcion', body, { headers: this.headers(request.token) });
    } catch (err) {
      return classifyTransportError(err);
    }
    const meta = this.meta(res);
    const cause = header(res, 'x-error-cause');
    if (res.status >= 200 && res.status < 300) {
      const location = header(res, 'location');
      return { kind: 'accepted', status: res.status, ...(location ? { location } : {}), ...meta };
    }
    if (res.status === 400) {
      if (cause && ALREADY_RECEIVED.test(cause))
        return { kind: 'alreadyReceived', status: 400, cause, ...meta };
      return {
        kind: 'rejected',
        status: 400,
        ...(cause ? { cause } : {}),
        validationException: header(res, 'validation-exception') === 'true',
        ...(res.data !== undefined && res.data !== '' ? { body: res.data } : {}),
        ...meta,
      };
    }
    return this.failure(res, cause);
  }

  async status(token: string, clave: string): Promise<StatusOutcome> {
    let res: AxiosResponse;
    try {
      res = await this.http.get(`/recepcion/${encodeURIComponent(clave)}`, { headers: this.headers(token) });
    } catch (err) {
      return classifyTransportError(err);
    }
    const meta = this.meta(res);
    const cause = header(res, 'x-error-cause');
    if (res.status === 200) {
      const parsed = parseRecepcionStatus(res.data);
      if (parsed) return { kind: 'found', ...parsed, ...meta };
      return { kind: 'unexpected', status: 200, cause: 'status body without clave/ind-estado', ...meta };
    }
    if (res.status === 404) return { kind: 'notFound', status: 404, ...(cause ? { cause } : {}), ...meta };
    if (res.status === 400) return { kind: 'invalid', status: 400, ...(cause ? { cause } : {}), ...meta };
    return this.failure(res, cause);
  }

  /**
   * One page of GET /comprobantes (REFERENCE §4.5): `emisor`/`receptor` are identification type + number
   * (e.g. 02003101123456). 200 is the last page, 206 a partial one; `total` comes from Content-Range.
   */
  async listComprobantes(
    token: string,
    query: { emisor?: string; receptor?: string; offset?: number; limit?: number },
  ): Promise<ComprobantesPageOutcome> {
    let res: AxiosResponse;
    try {
      res = await this.http.get('/comprobantes', { headers: this.headers(token), params: query });
    } catch (err) {
      return classifyTransportError(err);
    }
    const cause = header(res, 'x-error-cause');
    if ((res.status === 200 || res.status === 206) && Array.isArray(res.data)) {
      const items = (res.data as unknown[]).flatMap((item) => {
        const clave = (item as { clave?: unknown } | null)?.clave;
        return typeof clave === 'string' && /^\d{50}$/.test(clave) ? [item as ComprobanteSummary] : [];
      });
      const range = /\/(\d+)\s*$/.exec(header(res, 'content-range') ?? '');
      return {
        kind: 'page',
        items,
        partial: res.status === 206,
        ...(range ? { total: Number(range[1]) } : {}),
        ...this.meta(res),
      };
    }
    if (res.status === 400)
      return { kind: 'invalid', status: 400, ...(cause ? { cause } : {}), ...this.meta(res) };
    return this.failure(res, cause);
  }

  /** GET /comprobantes/{clave}: one document's summary (and, from the sandbox, its signed XML). */
  async getComprobante(token: string, clave: string): Promise<ComprobanteOutcome> {
    let res: AxiosResponse;
    try {
      res = await this.http.get(`/comprobantes/${encodeURIComponent(clave)}`, {
        headers: this.headers(token),
      });
    } catch (err) {
      return classifyTransportError(err);
    }
    const cause = header(res, 'x-error-cause');
    if (res.status === 200 && typeof res.data === 'object' && res.data !== null) {
      const d = res.data as Record<string, unknown>;
      const xml = typeof d.comprobanteXml === 'string' && d.comprobanteXml ? d.comprobanteXml : undefined;
      return {
        kind: 'found',
        clave: String(d.clave ?? clave),
        ...(xml ? { comprobanteXml: xml } : {}),
        ...this.meta(res),
      };
    }
    if (res.status === 404)
      return { kind: 'notFound', status: 404, ...(cause ? { cause } : {}), ...this.meta(res) };
    if (res.status === 400)
      return { kind: 'invalid', status: 400, ...(cause ? { cause } : {}), ...this.meta(res) };
    return this.failure(res, cause);
  }

  private headers(token: string): Record<string, string> {
    return { Authorization: `bearer ${token}`, Accept: 'application/json' };
  }

  private meta(res: AxiosResponse): Meta {
    const rateLimit = parseRateLimit(res);
    return rateLimit ? { rateLimit } : {};
  }

  private failure(res: AxiosResponse, cause: string | undefined): RecepcionFailure {
    const meta = this.meta(res);
    const withCause = cause ? { cause } : {};
    if (res.status === 401 || res.status === 403)
      return { kind: 'unauthorized', status: res.status, ...withCause, ...meta };
    if (res.status === 429) {
      const retryAfterMs = parseRetryAfterMs(res, this.clock());
      return {
        kind: 'rateLimited',
        status: 429,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        ...meta,
      };
    }
    if (res.status >= 500) return { kind: 'serverError', status: res.status, ...withCause, ...meta };
    return { kind: 'unexpected', status: res.status, ...withCause, ...meta };
  }
}
