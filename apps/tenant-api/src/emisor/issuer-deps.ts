// What the issuer use cases need, built once by createApp (and by the submission pipeline later).
import type { TokenManager } from '@cr/hacienda-client';
import type { Db, Logger, SecretBox } from '@cr/service-kit';
import type { TenantLimiter } from '../tenancy/tenant-rate-limit';
import type { TerritorialTable } from '../territory/territorial-table';
import type { TaxpayerRegistry } from './check-with-hacienda';
import type { CertificateOpener } from './p12-pool';

export interface IssuerDeps {
  db: Db;
  secrets: SecretBox;
  logger: Logger;
  territory: TerritorialTable | undefined;
  now: () => Date;
  /** Opens .p12 files off the event loop under a time limit (the P12Pool). */
  certificates: CertificateOpener;
  /** Issuer registrations and updates per tenant (each opens a .p12); beyond it, 429 with Retry-After. */
  issuerWriteLimiter: TenantLimiter;
  /** Days before expiry from which a certificate is reported loudly. */
  certificateWarningDays: number;
  /** Hacienda's taxpayer registry, to warn about a wrong activity or name; absent: no check. */
  taxpayerRegistry?: TaxpayerRegistry;
  /** Longest wait for that check before registering with a warning; default 5 s. */
  taxpayerCheckTimeoutMs?: number;
  /**
   * This process's IdP sessions (the app's Hacienda clients): an update retires the issuer's at once. Other
   * processes notice the new credentials on their next token request.
   */
  hacienda?: { tokens: Pick<TokenManager, 'retire'> };
}
