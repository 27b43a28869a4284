// Use case of POST /api/enviar/items: validate (contract, then the engine's rules), number, build and sign
// the document, then store it with its submission job in one statement, which also checks that the issuer has
// not changed since its key was opened (else the document is signed again as the issuer now is). The number
// (issuer, branch, terminal, type, numeroReferencia) is the natural idempotency key: the same body again
// answers the same clave; another body for a used number is a conflict. Concurrent twins meet at the unique
// constraint.
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import { DocumentRequest, MAX_LISTED_ISSUES, describeIssues } from '@cr/contracts';
import { DocumentError, buildSignedDocument } from '@cr/hacienda-xml';
import { AppError, metrics, parseBody } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { hashRequestBody } from './canonical-hash';
import { assertCertificateValidAt } from '../emisor/certificate-validity';
import type { HeldMaterial, SigningMaterial } from '../emisor/load-signing-material';
import { findIssuerVersion } from '../emisor/issuer-repository';
import {
  type DocumentNumber,
  type NewDocument,
  findByNumber,
  insertPendingDocument,
} from './document-repository';
import type { SubmissionDeps } from './submission-deps';
import { toEngineIssuer, toSigningKey } from './to-engine-issuer';
import { checkSignedXml } from './xsd-gate';

export const SUBMIT_QUEUE = 'hacienda.submit';
export const STATUS_QUEUE = 'hacienda.status';

export interface DocumentJobPayload {
  tenantId: string;
  documentId: string;
}

export interface SubmitResult {
  clave: string;
  /** false when the same document (same number and body) had already been received. */
  created: boolean;
}

export function callbackTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function callbackSecretContext(tenantId: string, documentId: string): string {
  return `tenant-api:document:${tenantId}:${documentId}:callback`;
}

/**
 * The other party, stored as the document's receptor_*: the receptor, foreign ones (05) too, which the
 * documents list shows and filters by; or for a factura de compra the supplier, who is the XML's Emisor
 * (then posted as emisor, docs/decisions/0010). Which of them POST /recepcion names is submissionOf's call.
 */
function counterpartyOf(document: DocumentRequest): { tipo: string; numero: string } | undefined {
  if (document.proveedor) return document.proveedor.identificacion;
  return document.receptor ? document.receptor.identificacion : undefined;
}

function repeatOrConflict(
  existing: { clave: string; request_hash: string },
  requestHash: string,
): SubmitResult {
  if (existing.request_hash === requestHash) return { clave: existing.clave, created: false };
  throw new AppError(
    'conflict',
    `numeroReferencia: this number was already used by document ${existing.clave} with a different body`,
  );
}

type Signed = ReturnType<typeof buildSignedDocument>;

function numberOf(document: DocumentRequest, material: SigningMaterial): DocumentNumber {
  return {
    emisor: material.identificacion,
    sucursal: document.sucursal ?? material.sucursal,
    terminal: document.terminal ?? 1,
    tipoDoc: document.tipoDoc,
    numeroReferencia: document.numeroReferencia,
  };
}

/**
 * The certificate's validity, the lookups (when configured), then the engine (validation, arithmetic, XML,
 * XAdES), then the signed XML against its XSD. Every refusal lists at most MAX_LISTED_ISSUES problems, as the
 * contract's.
 */
async function checkAndSign(
  deps: SubmissionDeps,
  tenantId: string,
  document: DocumentRequest,
  material: SigningMaterial,
): Promise<Signed> {
  // One instant judges the certificate and dates the signature (the lookups below may take seconds), so no
  // SigningTime falls outside the validity checked; first, so a document that cannot be signed spends none
  // of the tenant's lookups.
  const now = deps.now();
  assertCertificateValidAt(material.certificate, now, {
    field: 'emisor',
    identificacion: material.identificacion,
  });
  // The exonerations first: the CABYS check leaves a code to Hacienda when the tenant's window is used up,
  // so it never takes the slot an exoneration (refused with 429 without one) needed. The CABYS check gives
  // no promise when the local catalogue has every code: the common case awaits nothing (ADR 0066).
  const exonerations = deps.checkExonerations ? await deps.checkExonerations({ tenantId, document }) : [];
  const cabys = deps.checkCabys?.({ tenantId, document });
  const issues = cabys ? [...exonerations, ...(await cabys)] : exonerations;
  if (issues.length > 0) {
    const listed = issues.slice(0, MAX_LISTED_ISSUES);
    throw new AppError('bad_request', describeIssues(listed, issues.length - listed.length), {
      details: listed,
    });
  }
  let signed: Signed;
  try {
    signed = buildSignedDocument({
      document,
      issuer: toEngineIssuer(material, deps.proveedorSistemas),
      key: toSigningKey(material),
      now,
    });
  } catch (err) {
    // The engine lists at most as many issues as the contract (DocumentError), with the count of the rest.
    if (err instanceof DocumentError) {
      throw new AppError('bad_request', err.message, { details: err.issues });
    }
    throw err;
  }
  // Where the signing runs (this event loop): ~0.3 ms for 5 lines, ~20 ms for 1,000 (docs/decisions/0055).
  await checkSignedXml(deps, signed);
  return signed;
}

interface Prepared {
  tenantId: string;
  document: DocumentRequest;
  requestHash: string;
  material: SigningMaterial;
  number: DocumentNumber;
  signed: Signed;
}

/**
 * Stores the signed document with its event and submission job: one statement, its transaction's whole. A
 * concurrent twin that won (or an earlier copy of this request) answers instead. With `onlyIfIssuer`, stores
 * only while the issuer is at that version; undefined when it moved.
 */
async function store(deps: SubmissionDeps, p: Prepared): Promise<SubmitResult>;
async function store(
  deps: SubmissionDeps,
  p: Prepared,
  onlyIfIssuer: { identificacion: string; version: string },
): Promise<SubmitResult | undefined>;
async function store(
  deps: SubmissionDeps,
  p: Prepared,
  onlyIfIssuer?: { identificacion: string; version: string },
): Promise<SubmitResult | undefined> {
  const { tenantId, document, material, number, signed } = p;
  const id = randomUUID();
  const token = randomBytes(32).toString('base64url');
  const receptor = counterpartyOf(document);
  const payload: DocumentJobPayload = { tenantId, documentId: id };
  const submitJob = { queue: SUBMIT_QUEUE, tenant: tenantId, key: `submit:${id}`, payload };
  const row: NewDocument = {
    id,
    ...number,
    clave: signed.clave,
    emisorTipo: String(material.tipoIdentificacion).padStart(2, '0'),
    consecutivo: signed.consecutivo,
    fechaEmision: new Date(signed.fechaEmision),
    fechaEmisionText: signed.fechaEmision,
    ambiente: material.ambiente,
    ...(receptor ? { receptor } : {}),
    folioType: document.folioType,
    requestHash: p.requestHash,
    xml: signed.xml,
    totals: signed.totals,
    moneda: document.resumenFactura.codigoTipoMoneda.codigoMoneda,
    callbackTokenHash: callbackTokenHash(token),
    callbackTokenSealed: deps.secrets.seal(token, callbackSecretContext(tenantId, id)),
    ...(document.copias ? { copias: document.copias } : {}),
  };
  const outcome = await withTenant(
    deps.db,
    tenantId,
    (tx) => insertPendingDocument(tx, tenantId, row, submitJob, onlyIfIssuer),
    ONE_STATEMENT,
  );
  if (outcome === 'issuer_changed') return undefined;
  if (outcome === 'number_taken') {
    // The insert waited for the twin holding the number; a statement of its own sees it.
    const twin = await withTenant(
      deps.db,
      tenantId,
      (tx) => findByNumber(tx, tenantId, number),
      ONE_STATEMENT,
    );
    if (!twin) throw new Error('documents: number conflict without a visible document');
    return repeatOrConflict(twin, p.requestHash);
  }
  return { clave: signed.clave, created: true };
}

/**
 * With the issuer's material already held by this process: sign first, then one statement stores the document
 * while the issuer has not changed since the material was opened (the number's uniqueness answers a repeat):
 * one round trip (the version's read, the insert and the commit were three). Undefined when the issuer changed
 * since the material was opened: the caller starts over and reads it.
 */
async function submitWithHeldMaterial(
  deps: SubmissionDeps,
  input: { tenantId: string; document: DocumentRequest; requestHash: string },
  held: HeldMaterial,
): Promise<SubmitResult | undefined> {
  const { tenantId, document, requestHash } = input;
  const { material } = held;
  const number = numberOf(document, material);
  let signed: Signed;
  try {
    signed = await checkAndSign(deps, tenantId, document, material);
  } catch (err) {
    // A repeat answers what the first request got, even if a check would now refuse the body (an
    // exoneration since expired, a lookup that fails, a CABYS code since withdrawn): the number is looked up
    // before any refusal. And a refusal judged with material another process has replaced since is not
    // final: the caller judges the document again with the issuer as it is now (which also renews what this
    // process holds).
    const { existing, current } = await withTenant(deps.db, tenantId, async (tx) => ({
      existing: await findByNumber(tx, tenantId, number),
      current: await findIssuerVersion(tx, tenantId, material.identificacion),
    }));
    if (existing) return repeatOrConflict(existing, requestHash);
    if (current !== held.version) return undefined;
    throw err;
  }
  return store(
    deps,
    { tenantId, document, requestHash, material, number, signed },
    { identificacion: material.identificacion, version: held.version },
  );
}

export async function submitDocument(
  deps: SubmissionDeps,
  input: { tenantId: string; body: unknown },
): Promise<SubmitResult> {
  const { tenantId } = input;
  const document = parseBody(DocumentRequest, input.body);
  const requestHash = hashRequestBody(input.body);
  const held = deps.signing.peek({ tenantId, identificacion: document.emisor });
  let outcome = held && (await submitWithHeldMaterial(deps, { tenantId, document, requestHash }, held));
  for (let reads = 0; !outcome; reads++) {
    if (reads === ISSUER_READS) throw issuerKeptChanging();
    outcome = await submitReadingIssuer(deps, { tenantId, document, requestHash });
  }
  if (outcome.created) {
    metrics.documents.submitted.inc({ kind: document.tipoDoc });
    deps.wakeWorker?.();
    deps.logger.info('document received', { tenantId, clave: outcome.clave, tipoDoc: document.tipoDoc });
  }
  return outcome;
}

/**
 * Times the issuer is read again because it changed while a document was being signed with it. Its writes
 * are rate-limited per tenant, so a third change in a row means someone keeps updating it: the client is
 * told to send the document again rather than kept waiting.
 */
const ISSUER_READS = 3;

function issuerKeptChanging(): AppError {
  return new AppError(
    'conflict',
    'emisor: the issuer was updated while this document was being signed, several times in a row; nothing was stored: send the document again',
    { headers: { 'Retry-After': '1' } },
  );
}

/**
 * The issuer (opened again when its version moved, outside any transaction: `hold`), the number's
 * pre-check, then as with held material: the signing, and the insert while the issuer is still at the version
 * read. Reading the .p12, the lookups and the signing take time in which the issuer may be updated (a revoked
 * certificate replaced, another branch): the document is then signed again with the issuer as it is now
 * (undefined) rather than stored signed with what it no longer is.
 */
async function submitReadingIssuer(
  deps: SubmissionDeps,
  input: { tenantId: string; document: DocumentRequest; requestHash: string },
): Promise<SubmitResult | undefined> {
  const { tenantId, document, requestHash } = input;
  const held = await deps.signing.hold({ tenantId, identificacion: document.emisor });
  const number = numberOf(document, held.material);
  // The insert still decides between concurrent twins; this spares signing a repeat.
  const existing = await withTenant(
    deps.db,
    tenantId,
    (tx) => findByNumber(tx, tenantId, number),
    ONE_STATEMENT,
  );
  if (existing) return repeatOrConflict(existing, requestHash);
  return submitWithHeldMaterial(deps, input, held);
}
