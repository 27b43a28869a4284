// @cr-einvoice/sdk: a typed client for the Costa Rica e-invoicing platform, generated from its OpenAPI
// documents, and the check for its webhooks.
export { CrEinvoiceClient, createClient, SDK_VERSION, type ClientOptions } from './client';
export * from './errors';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from './verify-webhook';
export {
  FINAL_ESTADOS,
  type EnviarOptions,
  type ListarDocumentosFiltro,
  type WaitOptions,
  type WaitProgress,
} from './resources/documentos';
export type { ListarRecibidosFiltro } from './resources/recepcion';
export type { AccessToken, Credentials } from './token';
export { tokenExpiry } from './token';
export type { FetchLike, Transport, CallOptions, CallResult } from './transport';
export type { RetryOptions } from './retry';
export { SDK_METHODS, EXCLUDED_OPERATIONS, type SdkMethodPath } from './sdk-methods';
export { NOT_REPEATABLE } from './resend-policy';
export { OPERATIONS, type OperationKey, type OperationOf } from './generated/operations-map';
export type * from './types';
export type { components as TenantApiComponents, paths as TenantApiPaths } from './generated/tenant-api';
export type { components as AuthServerComponents, paths as AuthServerPaths } from './generated/auth-server';
