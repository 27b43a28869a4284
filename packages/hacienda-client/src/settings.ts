// Where Hacienda lives, as settings the tenant-api spreads into its config schema. The IdP settings are
// full token endpoint URLs; the recepción settings are base URLs ending in /recepcion/v1 (ARCHITECTURE).
import { type Static, Type } from '@sinclair/typebox';

export type Ambiente = 1 | 2;

export const HACIENDA_DEFAULTS = {
  HACIENDA_IDP_URL_TEST:
    'https://idp.comprobanteselectronicos.go.cr/auth/realms/rut-stag/protocol/openid-connect/token',
  HACIENDA_IDP_URL_PROD:
    'https://idp.comprobanteselectronicos.go.cr/auth/realms/rut/protocol/openid-connect/token',
  HACIENDA_RECEPCION_URL_TEST: 'https://api-sandbox.comprobanteselectronicos.go.cr/recepcion/v1',
  HACIENDA_RECEPCION_URL_PROD: 'https://api.comprobanteselectronicos.go.cr/recepcion/v1',
  HACIENDA_PUBLIC_API_URL: 'https://api.hacienda.go.cr',
} as const;

/** Spread into an app's config schema: `Type.Object({...haciendaSettingsProperties, ...})`. */
export const haciendaSettingsProperties = {
  HACIENDA_IDP_URL_TEST: Type.String({ format: 'uri', default: HACIENDA_DEFAULTS.HACIENDA_IDP_URL_TEST }),
  HACIENDA_IDP_URL_PROD: Type.String({ format: 'uri', default: HACIENDA_DEFAULTS.HACIENDA_IDP_URL_PROD }),
  HACIENDA_RECEPCION_URL_TEST: Type.String({
    format: 'uri',
    default: HACIENDA_DEFAULTS.HACIENDA_RECEPCION_URL_TEST,
  }),
  HACIENDA_RECEPCION_URL_PROD: Type.String({
    format: 'uri',
    default: HACIENDA_DEFAULTS.HACIENDA_RECEPCION_URL_PROD,
  }),
  HACIENDA_PUBLIC_API_URL: Type.String({ format: 'uri', default: HACIENDA_DEFAULTS.HACIENDA_PUBLIC_API_URL }),
  /**
   * Submissions per issuer per minute that the worker sends (100, issue 6; Hacienda's own numbers are
   * unconfirmed, REFERENCE §4). A load test against the local sandbox lifts it to measure the pipeline.
   */
  HACIENDA_SUBMISSIONS_PER_MINUTE: Type.Optional(Type.Integer({ minimum: 1, default: 100 })),
  /**
   * Public-API lookups one tenant may have waiting or in flight at once, per process (ADR 0063); beyond it
   * 429. The bucket is shared by every tenant: without this one tenant's burst filled its queue.
   */
  HACIENDA_LOOKUPS_PER_TENANT: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 4 })),
  /**
   * Longest a lookup (or a submission's exoneration check) waits for a turn at the shared bucket; past it
   * 502 with Retry-After. Under the gateway's 30 s, so a busy Hacienda share is an answer, not a hang.
   */
  HACIENDA_LOOKUP_MAX_WAIT_MS: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000, default: 10_000 })),
};

export const HaciendaSettingsSchema = Type.Object(haciendaSettingsProperties);
export type HaciendaSettings = Static<typeof HaciendaSettingsSchema>;

/** Keycloak client of each ambiente: 2 = sandbox (`api-stag`), 1 = production (`api-prod`) (REFERENCE §3). */
export function idpClientId(ambiente: Ambiente): 'api-stag' | 'api-prod' {
  return ambiente === 1 ? 'api-prod' : 'api-stag';
}
