// What the receiving use cases need on top of the submission pipeline (they sign and submit answers with
// the same jobs): XSD validation of untrusted XML and the business-day calendar of the deadline.
import type { BusinessCalendar } from '@cr/hacienda-xml';
import type { XsdValidator } from '@cr/xsd';
import type { SubmissionDeps } from '../documents/submission-deps';
import type { TenantConcurrency } from '../tenancy/tenant-concurrency';
import type { TenantLimiter } from '../tenancy/tenant-rate-limit';
import type { ReceivedXmlChecker } from './received-xml-pool';

export interface RecepcionDeps extends SubmissionDeps {
  xsd: XsdValidator;
  /** The XML checks of an upload, in worker threads (RECEPCION_CHECK_THREADS). */
  xmlChecks: ReceivedXmlChecker;
  calendar: BusinessCalendar;
  /** RECEPCION_UPLOADS_PER_TENANT: uploads one tenant may have in progress at once. */
  uploads: Pick<TenantConcurrency, 'run'>;
  /** RECEPCION_SYNC_LIMIT per …_WINDOW_SECONDS: POST /api/recepcion/sincronizar calls per tenant. */
  syncLimiter: TenantLimiter;
}
