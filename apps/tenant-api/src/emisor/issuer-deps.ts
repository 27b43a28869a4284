// What the issuer use cases need, built once by createApp (and by the submission pipeline later).
import type { Db, Logger, SecretBox } from '@cr/service-kit';
import type { TerritorialTable } from '../territory/territorial-table';
import type { TaxpayerRegistry } from './check-with-hacienda';

export interface IssuerDeps {
  db: Db;
  secrets: SecretBox;
  logger: Logger;
  territory: TerritorialTable | undefined;
  now: () => Date;
  /** Days before expiry from which a certificate is reported loudly. */
  certificateWarningDays: number;
  /** Hacienda's taxpayer registry, to warn about a wrong activity or name; absent: no check. */
  taxpayerRegistry?: TaxpayerRegistry;
  /** Longest wait for that check before registering with a warning; default 5 s. */
  taxpayerCheckTimeoutMs?: number;
}
