// @cr/hacienda-client: I/O with Hacienda. `createHaciendaClients(settings)` wires everything from the
// settings; the classes are exported for tests and special wiring.
import type { Logger } from '@cr/service-kit';
import { IdpClient, TokenManager } from './idp';
import { type Clock, createSubmissionLimiter, type Sleep, type SlidingWindowLimiter } from './limits';
import { HaciendaPublicApi } from './public-api';
import { RecepcionClient } from './recepcion';
import type { Ambiente, HaciendaSettings } from './settings';

export * from './http';
export * from './idp';
export * from './limits';
export * from './public-api';
export * from './recepcion';
export * from './settings';

export interface HaciendaClients {
  idp: IdpClient;
  tokens: TokenManager;
  /** The recepción client of an ambiente (1 production, 2 sandbox). */
  recepcion(ambiente: Ambiente): RecepcionClient;
  publicApi: HaciendaPublicApi;
  /** ≤ 100 submissions per issuer per minute. */
  submissions: SlidingWindowLimiter;
}

export interface CreateHaciendaClientsOptions {
  logger?: Logger;
  clock?: Clock;
  sleep?: Sleep;
  timeoutMs?: number;
  /** How long getToken may wait for a grant slot (default 0: throw RateLimitedError). */
  tokenMaxWaitMs?: number;
}

export function createHaciendaClients(
  settings: HaciendaSettings,
  options: CreateHaciendaClientsOptions = {},
): HaciendaClients {
  const common = {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  };
  const idp = new IdpClient({
    tokenUrlTest: settings.HACIENDA_IDP_URL_TEST,
    tokenUrlProd: settings.HACIENDA_IDP_URL_PROD,
    ...common,
  });
  const tokens = new TokenManager({
    idp,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.tokenMaxWaitMs === undefined ? {} : { maxWaitMs: options.tokenMaxWaitMs }),
  });
  const byAmbiente = {
    1: new RecepcionClient({ baseUrl: settings.HACIENDA_RECEPCION_URL_PROD, ...common }),
    2: new RecepcionClient({ baseUrl: settings.HACIENDA_RECEPCION_URL_TEST, ...common }),
  } as const;
  return {
    idp,
    tokens,
    recepcion: (ambiente) => byAmbiente[ambiente],
    publicApi: new HaciendaPublicApi({
      baseUrl: settings.HACIENDA_PUBLIC_API_URL,
      ...common,
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(settings.HACIENDA_LOOKUPS_PER_TENANT === undefined
        ? {}
        : { lookupsPerLane: settings.HACIENDA_LOOKUPS_PER_TENANT }),
      ...(settings.HACIENDA_LOOKUP_MAX_WAIT_MS === undefined
        ? {}
        : { maxWaitMs: settings.HACIENDA_LOOKUP_MAX_WAIT_MS }),
    }),
    submissions: createSubmissionLimiter({
      limit: settings.HACIENDA_SUBMISSIONS_PER_MINUTE ?? 100,
      ...(options.clock ? { clock: options.clock } : {}),
    }),
  };
}
