// What the submission pipeline needs: the issuer deps, the signing-material cache, Hacienda's clients,
// where callbacks reach us, and the retry schedules (short in tests, Hacienda's real pace by default).
import type { DocumentRequest, ValidationIssue } from '@cr/contracts';
import type { HaciendaClients } from '@cr/hacienda-client';
import type { TrustedSigner } from '@cr/hacienda-xml';
import { backoffSchedules } from '@cr/jobs';
import type { IssuerDeps } from '../emisor/issuer-deps';
import type { XsdValidator } from '@cr/xsd';
import type { SigningMaterialLoader } from '../emisor/load-signing-material';

export interface SubmissionSchedules {
  /** Retries of a submission after 429/5xx/timeouts/network errors (last entry repeats, no end). */
  submit: readonly number[];
  /** Status checks after the submission (last entry repeats, capped at `statusCapMs`). */
  status: readonly number[];
  statusCapMs: number;
  /** First status check after recepción took the document. */
  firstStatusMs: number;
}

export const DEFAULT_SCHEDULES: SubmissionSchedules = {
  submit: backoffSchedules.haciendaSubmit,
  status: backoffSchedules.haciendaStatus,
  statusCapMs: 3_600_000,
  firstStatusMs: 2_000,
};

export interface SubmissionDeps extends IssuerDeps {
  signing: SigningMaterialLoader;
  hacienda: HaciendaClients;
  /** Base URL of the callback route, e.g. https://callbacks.api.example.com. */
  publicUrl: string;
  schedules?: Partial<SubmissionSchedules>;
  /** Wakes the in-process jobs worker after a commit (the worker also polls). */
  wakeWorker?: () => void;
  /**
   * Extra checks before signing (the exonerations lookup); issues become a 400. The tenant's: its lookups
   * that reach Hacienda count against its window (429 beyond it).
   */
  checkExonerations?: (input: { tenantId: string; document: DocumentRequest }) => Promise<ValidationIssue[]>;
  /**
   * The CABYS check before signing (ADR 0066): undefined, synchronously, when the local catalogue has every
   * code; else the codes Hacienda says do not exist, as issues (a 400). It never fails the submission: a code
   * it could not ask about (Hacienda down, the tenant's window used up) is left to Hacienda.
   */
  checkCabys?: (input: {
    tenantId: string;
    document: DocumentRequest;
  }) => Promise<ValidationIssue[]> | undefined;
  /**
   * The official XSDs (HACIENDA_XSD_DIR), compiled once: every signed document is validated against its
   * kind's before it is stored (xsd-gate.ts), the inbox's signed answers included. The inbox validates
   * received documents with the same one.
   */
  xsd: XsdValidator;
  /** v4.4 ProveedorSistemas written in every document: the cédula of the software provider. */
  proveedorSistemas?: string;
  /**
   * Hacienda's pinned CA bundle and seal (HACIENDA_CA_BUNDLE): with it, an answer whose MensajeHacienda does
   * not verify is refused and the document keeps waiting; without it (development) it is stored as it came.
   */
  haciendaTrust?: TrustedSigner;
}

export function schedulesOf(deps: Pick<SubmissionDeps, 'schedules'>): SubmissionSchedules {
  return { ...DEFAULT_SCHEDULES, ...deps.schedules };
}
