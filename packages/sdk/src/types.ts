// Request and response types of every operation, read from the generated OpenAPI types, so a change in the
// contracts changes the SDK's signatures at the next build.
import type { components as AuthComponents } from './generated/auth-server';
import type { components as EventComponents } from './generated/events';
import type { OperationKey, OperationOf } from './generated/operations-map';
import type { components as TenantComponents } from './generated/tenant-api';

/** The body of `application/json`, else of a `…+json` type (the JWK Set is `application/jwk-set+json`). */
type JsonContent<T> = T extends { content: infer C }
  ? C extends { 'application/json': infer B }
    ? B
    : C[Extract<keyof C, `${string}+json`>]
  : never;

/** The JSON body an operation takes. */
export type RequestBody<K extends OperationKey> =
  OperationOf<K> extends { requestBody: infer R } ? JsonContent<NonNullable<R>> : never;

/** The first success answer a route documents: 200, else 201, else 202 (accepted, e.g. an answer to a received document). */
type SuccessResponse<R> = R extends { 200: infer S }
  ? S
  : R extends { 201: infer S }
    ? S
    : R extends { 202: infer S }
      ? S
      : never;

/** The JSON body an operation answers with on success. */
export type ResponseBody<K extends OperationKey> = JsonContent<
  SuccessResponse<OperationOf<K> extends { responses: infer R } ? R : never>
>;

type TenantSchemas = TenantComponents['schemas'];
type AuthSchemas = AuthComponents['schemas'];

export type LoginRequest = AuthSchemas['LoginRequest'];
export type LoginResponse = AuthSchemas['LoginResponse'];
export type ErrorBody = TenantSchemas['Error'];
export type DocumentRequest = RequestBody<'tenant.submitDocument'>;
export type SubmitDocumentResponse = ResponseBody<'tenant.submitDocument'>;
export type DocumentStatus = ResponseBody<'tenant.getDocument'>['data'];
export type Estado = DocumentStatus['estado'];
export type EmisorRegistration = RequestBody<'tenant.registerIssuer'>;
type EventSchemas = EventComponents['schemas'];

/** A document's final state (`aceptado`, `rechazado`, `error`), POSTed to the webhook URL. */
export type DocumentEvent = EventSchemas['WebhookEventPayload'];
/** A received document still unanswered two business days or fewer before `vence`, or past it. */
export type RecepcionDeadlineEvent = EventSchemas['RecepcionDeadlineEvent'];
/** Any body POSTed to the webhook URL; only a deadline event has a `type`, so `'type' in event` tells them apart. */
export type WebhookEvent = EventSchemas['WebhookEvent'];
