// The client: one object per tenant, holding its token, with a resource per area of the API.
import { AuthResource } from './resources/auth';
import { DocumentosResource } from './resources/documentos';
import { EntregaResource } from './resources/entrega';
import { EmisoresResource } from './resources/emisores';
import { HaciendaResource } from './resources/hacienda';
import { RecepcionResource } from './resources/recepcion';
import { WebhooksResource } from './resources/webhooks';
import type { RetryOptions } from './retry';
import { type AccessToken, type Credentials, TokenManager } from './token';
import { type FetchLike, Transport } from './transport';
import type { LoginResponse } from './types';

export const SDK_VERSION = '0.1.0';

export interface ClientOptions {
  /** The auth-server, e.g. `https://auth.example.com` (needed to log in). */
  authUrl?: string;
  /** Your tenant's API, e.g. `https://acme.api.example.com`. */
  tenantUrl?: string;
  /**
   * `{base, password}` or `{base, apiKey}`: the client logs in by itself and again before the token expires.
   */
  credentials?: Credentials;
  /** A token obtained elsewhere; used until it expires (then TokenExpiredError unless `credentials` is set). */
  token?: string;
  /** Called with every new token (to store it). */
  onToken?: (token: AccessToken) => void;
  /** Log in again this many seconds before `exp`. Default 60. */
  refreshBeforeSeconds?: number;
  retry?: RetryOptions;
  /** Per attempt, reading the whole answer included. Default 30 s. */
  timeoutMs?: number;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  userAgent?: string;
}

export class CrEinvoiceClient {
  readonly auth: AuthResource;
  readonly emisores: EmisoresResource;
  readonly documentos: DocumentosResource;
  readonly hacienda: HaciendaResource;
  readonly webhooks: WebhooksResource;
  readonly recepcion: RecepcionResource;
  readonly entrega: EntregaResource;

  constructor(options: ClientOptions) {
    const fetchImpl: FetchLike | undefined = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (!fetchImpl) throw new TypeError('no fetch available: pass options.fetch');
    if (!options.authUrl && !options.tenantUrl) throw new TypeError('set authUrl, tenantUrl or both');
    // The token manager logs in through the transport, and the transport asks it for tokens.
    let transport: Transport | undefined;
    const tokens = new TokenManager({
      credentials: options.credentials,
      token: options.token,
      refreshBeforeSeconds: options.refreshBeforeSeconds ?? 60,
      onToken: options.onToken,
      login: async (credentials) =>
        (await transport!.call<LoginResponse>('auth.login', { body: credentials })).data,
    });
    transport = new Transport({
      authUrl: options.authUrl,
      tenantUrl: options.tenantUrl,
      fetch: fetchImpl,
      retry: options.retry ?? {},
      timeoutMs: options.timeoutMs ?? 30_000,
      userAgent: options.userAgent ?? `cr-einvoice-sdk/${SDK_VERSION}`,
      tokens,
    });
    this.auth = new AuthResource(transport);
    this.emisores = new EmisoresResource(transport);
    this.documentos = new DocumentosResource(transport);
    this.hacienda = new HaciendaResource(transport);
    this.webhooks = new WebhooksResource(transport);
    this.recepcion = new RecepcionResource(transport);
    this.entrega = new EntregaResource(transport);
  }
}

export function createClient(options: ClientOptions): CrEinvoiceClient {
  return new CrEinvoiceClient(options);
}
