// What the issuer use cases need, built once by createApp (and by the submission pipeline later).
import type { Db, Logger, SecretBox } from '@cr/service-kit';
import type { TerritorialTable } from '../territory/territorial-table';

export interface IssuerDeps {
  db: Db;
  secrets: SecretBox;
  logger: Logger;
  territory: TerritorialTable | undefined;
  now: () => Date;
  /** Days before expiry from which a certificate is reported loudly. */
  certificateWarningDays: number;
}
