// What the receiving use cases need on top of the submission pipeline (they sign and submit answers with
// the same jobs): XSD validation of untrusted XML and the business-day calendar of the deadline.
import type { BusinessCalendar } from '@cr/hacienda-xml';
import type { XsdValidator } from '@cr/xsd';
import type { SubmissionDeps } from '../documents/submission-deps';

export interface RecepcionDeps extends SubmissionDeps {
  xsd: XsdValidator;
  calendar: BusinessCalendar;
}
