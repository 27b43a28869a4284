// Storage of documents and their event log. Every function takes the tenant and filters by it; callers run
// them inside withTenant(), where row-level security enforces the same filter a second time.
import { type EnqueueOptions, enqueueCtes, notifyJobsDue, rescheduleCtes } from '@cr/jobs';
import { CteWrites, type Db, type Queryable } from '@cr/service-kit';

export type Estado = 'pendiente' | 'enviado' | 'aceptado' | 'rechazado' | 'error';
export type FinalEstado = 'aceptado' | 'rechazado' | 'error';

export interface DocumentNumber {
  emisor: string;
  sucursal: number;
  terminal: number;
  tipoDoc: string;
  numeroReferencia: number;
}

export interface NewDocument extends DocumentNumber {
  id: string;
  clave: string;
  emisorTipo: string;
  consecutivo: string;
  fechaEmision: Date;
  fechaEmisionText: string;
  ambiente: number;
  receptor?: { tipo: string; numero: string };
  /** The request's folioType, echoed in the webhook event. */
  folioType: string;
  requestHash: string;
  xml: string;
  totals: Record<string, string>;
  /** CodigoMoneda (ISO 4217) of a comprobante; absent for an answer (MensajeReceptor). */
  moneda?: string;
  callbackTokenHash: string;
  callbackTokenSealed: string;
  /** The request's copias: more addresses for the receptor's e-mail. */
  copias?: string[];
}

export interface DocumentRow {
  id: string;
  tenant_id: string;
  clave: string;
  tipo_doc: string;
  emisor: string;
  emisor_tipo: string;
  sucursal: number;
  terminal: number;
  numero_referencia: string;
  consecutivo: string;
  fecha_emision: Date;
  fecha_emision_text: string;
  ambiente: number;
  receptor_tipo: string | null;
  receptor_numero: string | null;
  estado: Estado;
  request_hash: string;
  xml: string;
  callback_token_sealed: string;
  /** Submissions posted to recepción (the `intentos` consultar shows). */
  submit_attempts: number;
  error_cause: string | null;
  respuesta_xml: string | null;
  mensaje: number | null;
  detalle: unknown;
  /** Set on a receiver's answer (MensajeReceptor): the answered document's clave. */
  clave_recibida: string | null;
  folio_type: string;
  /** The request's copias (JSON array), or null. */
  correo_copias: string[] | null;
}

/**
 * What `insertPendingDocument` did: inserted it; found its number taken (a twin: read it in a statement of its
 * own, which sees what the insert waited for); or, with `onlyIfIssuer`, found the issuer changed and did not.
 */
export type InsertOutcome = 'inserted' | 'number_taken' | 'issuer_changed';

/**
 * Inserts the document in `pendiente` with its first event and its first job unless a document with the same
 * number exists. One statement (the event and the job are inserted from the document's RETURNING), as each
 * statement is a round trip of its own and the submission path pays them all. With `onlyIfIssuer`, only while
 * the issuer is still at the version its signing material was opened at (the same statement reads it).
 */
export async function insertPendingDocument(
  tx: Queryable,
  tenantId: string,
  d: NewDocument,
  firstJob: Omit<EnqueueOptions<unknown>, 'pendingKey'>,
  onlyIfIssuer?: { identificacion: string; version: string },
): Promise<InsertOutcome> {
  const w = new CteWrites();
  const tenant = w.param(tenantId);
  w.add(
    'held',
    onlyIfIssuer
      ? `SELECT 1 FROM issuers WHERE tenant_id = ${tenant}
           AND identificacion = ${w.param(onlyIfIssuer.identificacion)} AND version = ${w.param(onlyIfIssuer.version)}::bigint`
      : 'SELECT 1',
  );
  // INSERT … SELECT (not VALUES), so that `held` decides; a parameter in a SELECT list would be text, so
  // every other type is cast to its column's. ON CONFLICT names no constraint: within a tenant the clave
  // embeds the number (the issuer's id, an integer, and the consecutivo), so a taken clave is a taken number,
  // and a concurrent twin met first at the clave's index (not an arbiter) would raise instead of skipping.
  // The id and the callback token are random.
  const values = [
    `${w.param(d.id)}::uuid`,
    tenant,
    w.param(d.clave),
    w.param(d.tipoDoc),
    w.param(d.emisor),
    `${w.param(d.sucursal)}::integer`,
    `${w.param(d.terminal)}::integer`,
    `${w.param(d.numeroReferencia)}::bigint`,
    w.param(d.consecutivo),
    `${w.param(d.fechaEmision)}::timestamptz`,
    w.param(d.fechaEmisionText),
    `${w.param(d.ambiente)}::smallint`,
    `${w.param(d.receptor?.tipo ?? null)}::text`,
    `${w.param(d.receptor?.numero ?? null)}::text`,
    "'pendiente'",
    w.param(d.requestHash),
    w.param(d.xml),
    `${w.param(JSON.stringify(d.totals))}::jsonb`,
    w.param(d.callbackTokenHash),
    w.param(d.callbackTokenSealed),
    w.param(d.emisorTipo),
    w.param(d.folioType),
    `${w.param(d.copias?.length ? JSON.stringify(d.copias) : null)}::jsonb`,
    `${w.param(d.moneda ?? null)}::text`,
  ];
  w.add(
    'inserted',
    `INSERT INTO documents (id, tenant_id, clave, tipo_doc, emisor, sucursal, terminal, numero_referencia,
       consecutivo, fecha_emision, fecha_emision_text, ambiente, receptor_tipo, receptor_numero, estado,
       request_hash, xml, totals, callback_token_hash, callback_token_sealed, emisor_tipo, folio_type,
       correo_copias, moneda)
     SELECT ${values.join(', ')} FROM held
     ON CONFLICT DO NOTHING
     RETURNING tenant_id, id`,
  );
  w.add(
    'event',
    `INSERT INTO document_events (tenant_id, document_id, estado)
     SELECT tenant_id, id, 'pendiente' FROM inserted`,
  );
  w.include((first) => enqueueCtes(firstJob, 'inserted', first));
  w.select('inserted', 'EXISTS (SELECT 1 FROM inserted)').select('held', 'EXISTS (SELECT 1 FROM held)');
  const row = await w.run<{ inserted: boolean; held: boolean }>(tx);
  if (row.inserted) {
    // Workers re-poll briefly after a wake-up, so a nudge that arrives before the commit is not lost.
    notifyJobsDue(firstJob.queue);
    return 'inserted';
  }
  return row.held ? 'number_taken' : 'issuer_changed';
}

/** The document that holds a number: enough to tell a repeat of its request from another body. */
export interface UsedNumber {
  id: string;
  clave: string;
  request_hash: string;
  estado: Estado;
}

export async function findByNumber(
  tx: Queryable,
  tenantId: string,
  n: DocumentNumber,
): Promise<UsedNumber | undefined> {
  const r = await tx.query<UsedNumber>(
    `SELECT id, clave, request_hash, estado FROM documents
     WHERE tenant_id = $1 AND emisor = $2 AND sucursal = $3 AND terminal = $4 AND tipo_doc = $5
       AND numero_referencia = $6`,
    [tenantId, n.emisor, n.sucursal, n.terminal, n.tipoDoc, n.numeroReferencia],
  );
  return r.rows[0];
}

export async function findDocumentById(
  tx: Queryable,
  tenantId: string,
  id: string,
): Promise<DocumentRow | undefined> {
  const r = await tx.query<DocumentRow>('SELECT * FROM documents WHERE tenant_id = $1 AND id = $2', [
    tenantId,
    id,
  ]);
  return r.rows[0];
}

/** What following a document at Hacienda reads: its state and whom to ask, without the signed XML. */
export type DocumentStatusRow = Pick<
  DocumentRow,
  'id' | 'clave' | 'clave_recibida' | 'estado' | 'emisor' | 'ambiente'
>;

export async function findDocumentStatusById(
  tx: Queryable,
  tenantId: string,
  id: string,
): Promise<DocumentStatusRow | undefined> {
  const r = await tx.query<DocumentStatusRow>(
    'SELECT id, clave, clave_recibida, estado, emisor, ambiente FROM documents WHERE tenant_id = $1 AND id = $2',
    [tenantId, id],
  );
  return r.rows[0];
}

export async function findDocumentByClave(
  tx: Queryable,
  tenantId: string,
  clave: string,
): Promise<DocumentRow | undefined> {
  const r = await tx.query<DocumentRow>('SELECT * FROM documents WHERE tenant_id = $1 AND clave = $2', [
    tenantId,
    clave,
  ]);
  return r.rows[0];
}

/**
 * An issued document by its clave or, when the tenant issued none with it, the latest receiver's answer
 * (MensajeReceptor) to the received document with that clave: only `columns` of it. A caller names what it
 * uses: the row holds the signed XML and Hacienda's answer (about 2 MB for a 1,000-line invoice), and a
 * consult that read them to show neither took 300+ MB for 64 at once.
 */
export async function findDocumentOrAnswerByClave<K extends keyof DocumentRow>(
  tx: Queryable,
  tenantId: string,
  clave: string,
  columns: readonly K[],
): Promise<Pick<DocumentRow, K> | undefined> {
  const r = await tx.query<Pick<DocumentRow, K>>(documentOrAnswerByClaveSql(columns), [tenantId, clave]);
  return r.rows[0];
}

/**
 * The query of findDocumentOrAnswerByClave (`$1` the tenant, `$2` the clave), for a statement that reads
 * something else beside the document in the same round trip.
 */
export function documentOrAnswerByClaveSql(columns: readonly (keyof DocumentRow)[]): string {
  return `SELECT ${columns.join(', ')} FROM documents WHERE tenant_id = $1 AND (clave = $2 OR clave_recibida = $2)
     ORDER BY (clave = $2) DESC, created_at DESC LIMIT 1`;
}

export async function listEvents(
  tx: Queryable,
  tenantId: string,
  documentId: string,
): Promise<Array<{ estado: Estado; detalle: string | null; created_at: Date }>> {
  const r = await tx.query<{ estado: Estado; detalle: string | null; created_at: Date }>(
    'SELECT estado, detalle, created_at FROM document_events WHERE tenant_id = $1 AND document_id = $2 ORDER BY id',
    [tenantId, documentId],
  );
  return r.rows;
}

/**
 * A document's change as the writes of one statement (a job's record may join them: JobContext.finishIn).
 * `after()`, once the statement ran, says what it made and wakes the workers of the jobs it added.
 */
export interface DocumentWrites<R> {
  writes: CteWrites;
  after(): R;
}

/**
 * A submission posted to recepción, counted: the `intentos` consultar shows. One statement; run it where the
 * job records what followed from the submission (finishWithWrites).
 */
export function submitAttemptWrites(tenantId: string, id: string): CteWrites {
  const w = new CteWrites();
  return addCounted(w, { tenant: w.param(tenantId), doc: w.param(id) });
}

/** Adds `counted`: the document's submission count + 1; with `unlessUpdated`, only when `updated` changed nothing. */
function addCounted(w: CteWrites, ids: { tenant: string; doc: string }, unlessUpdated = false): CteWrites {
  return w.add(
    'counted',
    `UPDATE documents SET submit_attempts = submit_attempts + 1, updated_at = now()
     WHERE tenant_id = ${ids.tenant} AND id = ${ids.doc}${unlessUpdated ? ' AND NOT EXISTS (SELECT 1 FROM updated)' : ''}`,
  );
}

/**
 * A job a transition adds in its own statement: only when this call made the transition, and not for the
 * document kinds in `unlessTipoDoc`; or, with `evenIfUnchanged`, whether or not it made it.
 */
export type TransitionJob = { job: Omit<EnqueueOptions<unknown>, 'pendingKey'> } & (
  | { unlessTipoDoc?: readonly string[]; evenIfUnchanged?: never }
  | { evenIfUnchanged: true }
);

/**
 * The writes that follow a transition's UPDATE, `updated` (RETURNING tenant_id, id, tipo_doc). The submission
 * that led to it, when `submitAttempt`, is counted whether or not the transition happened: `updated` counts it
 * itself and `counted` only when `updated` changed nothing (a row updated by two CTEs of one statement keeps
 * one of the two changes). Then the event in `estado` (once per document and state) and each job with its
 * lane, as `job_<n>_job` (it returns the id of a job it added).
 */
function afterTransition(
  w: CteWrites,
  ids: { tenant: string; doc: string },
  submitAttempt: boolean,
  estado: string,
  detalle: string | undefined,
  jobs: readonly TransitionJob[],
): void {
  if (submitAttempt) addCounted(w, ids, true);
  w.add(
    'event',
    `INSERT INTO document_events (tenant_id, document_id, estado, detalle)
     SELECT tenant_id, id, ${w.param(estado)}::text, ${w.param(detalle ?? null)}::text FROM updated
     ON CONFLICT ON CONSTRAINT document_events_once DO NOTHING`,
  );
  jobs.forEach((j, i) => {
    let source = 'SELECT 1 FROM updated';
    if (j.evenIfUnchanged) source = 'SELECT 1';
    else if (j.unlessTipoDoc?.length) {
      source += ` WHERE tipo_doc <> ALL(${w.param([...j.unlessTipoDoc])}::text[])`;
    }
    w.add(`source_${i}`, source);
    w.include((first) => enqueueCtes(j.job, `source_${i}`, first, `job_${i}_`));
  });
  w.select('tipo_doc', '(SELECT tipo_doc FROM updated)');
}

/**
 * pendiente → enviado with its event, counting the submission that got there when `submitAttempt` says so
 * (whether or not this made the transition), and adds `next` (the status follow-up, `evenIfUnchanged`).
 * After: the document's tipoDoc when this made the transition (undefined when it had already happened), and
 * whether `next` was added (false: a job with its key existed).
 */
export function enviadoWrites(
  tenantId: string,
  id: string,
  detalle: string,
  next: TransitionJob,
  submitAttempt = false,
): DocumentWrites<{ tipoDoc: string | undefined; added: boolean }> {
  const w = new CteWrites();
  const ids = { tenant: w.param(tenantId), doc: w.param(id) };
  w.add(
    'updated',
    `UPDATE documents SET estado = 'enviado', submit_attempts = submit_attempts + ${w.param(submitAttempt ? 1 : 0)},
       updated_at = now()
     WHERE tenant_id = ${ids.tenant} AND id = ${ids.doc} AND estado = 'pendiente'
     RETURNING tenant_id, id, tipo_doc`,
  );
  afterTransition(w, ids, submitAttempt, 'enviado', detalle, [next]);
  w.select('added', 'EXISTS (SELECT 1 FROM job_0_job)');
  return {
    writes: w,
    after: () => {
      const row = w.selected<{ tipo_doc: string | null; added: boolean }>();
      // Workers re-poll briefly after a wake-up, so a nudge that arrives before the commit is not lost.
      if (row.added) notifyJobsDue(next.job.queue);
      return { tipoDoc: row.tipo_doc ?? undefined, added: row.added === true };
    },
  };
}

export interface FinalValues {
  estado: FinalEstado;
  errorCause?: string;
  respuestaXml?: string;
  mensaje?: number;
  detalle?: unknown;
  verificacion?: unknown;
  totales?: unknown;
}

/**
 * pendiente/enviado → a final state with its event and the jobs that follow from it (`then`), counting the
 * submission that led to it when `submitAttempt` says so (whether or not this made the transition). After: the
 * document's tipoDoc when this made the transition; undefined when it had already happened (and then neither
 * an event nor a job was added).
 */
export function finalWrites(
  tenantId: string,
  id: string,
  v: FinalValues,
  detalle: string,
  then: readonly TransitionJob[],
  submitAttempt = false,
): DocumentWrites<string | undefined> {
  const w = new CteWrites();
  const ids = { tenant: w.param(tenantId), doc: w.param(id) };
  const json = (value: unknown) => w.param(value === undefined ? null : JSON.stringify(value));
  w.add(
    'updated',
    `UPDATE documents SET estado = ${w.param(v.estado)}, error_cause = COALESCE(${w.param(v.errorCause ?? null)}, error_cause),
       respuesta_xml = ${w.param(v.respuestaXml ?? null)}, mensaje = ${w.param(v.mensaje ?? null)},
       detalle = ${json(v.detalle)}::jsonb, respuesta_verificacion = ${json(v.verificacion)}::jsonb,
       respuesta_totales = ${json(v.totales)}::jsonb,
       submit_attempts = submit_attempts + ${w.param(submitAttempt ? 1 : 0)}, updated_at = now()
     WHERE tenant_id = ${ids.tenant} AND id = ${ids.doc} AND estado IN ('pendiente', 'enviado')
     RETURNING tenant_id, id, tipo_doc`,
  );
  afterTransition(w, ids, submitAttempt, v.estado, detalle, then);
  return {
    writes: w,
    after: () => {
      const tipoDoc = w.selected<{ tipo_doc: string | null }>().tipo_doc ?? undefined;
      if (tipoDoc !== undefined) {
        for (const j of then)
          if (!('unlessTipoDoc' in j && j.unlessTipoDoc?.includes(tipoDoc))) notifyJobsDue(j.job.queue);
      }
      return tipoDoc;
    },
  };
}

/**
 * unsafe: crosses tenants on purpose. Hacienda's callback names no tenant, only the per-document token;
 * runs as the owning role outside withTenant and returns only where the document lives. In the same statement,
 * when the document is enviado, its status check (the job keyed `statusKeyPrefix` + its id) is brought forward
 * to now: the callback's whole work on that path, one round trip.
 */
export async function unsafeTakeCallback(
  db: Db,
  hash: string,
  statusKeyPrefix: string,
): Promise<{ tenantId: string; id: string; estado: Estado } | undefined> {
  const forward = rescheduleCtes(`SELECT $2::text || id::text FROM found WHERE estado = 'enviado'`, 3);
  const r = await db.query<{ tenant_id: string; id: string; estado: Estado; queue: string | null }>(
    `WITH found AS (SELECT tenant_id, id, estado FROM documents WHERE callback_token_hash = $1),
     ${forward.sql}
     SELECT tenant_id, id, estado, (SELECT queue FROM brought LIMIT 1) AS queue FROM found`,
    [hash, statusKeyPrefix, ...forward.params],
  );
  const row = r.rows[0];
  if (row?.queue) notifyJobsDue(row.queue);
  return row ? { tenantId: row.tenant_id, id: row.id, estado: row.estado } : undefined;
}
