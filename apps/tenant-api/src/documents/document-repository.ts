// Storage of documents and their event log. Every function takes the tenant and filters by it; callers run
// them inside withTenant(), where row-level security enforces the same filter a second time.
import { type EnqueueOptions, enqueueCtes, notifyJobsDue } from '@cr/jobs';
import type { Db, Queryable } from '@cr/service-kit';

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
 * Inserts the document in `pendiente` with its first event and its first job unless a document with the same
 * number exists; returns whether it was inserted. One statement (the event and the job are inserted from the
 * document's RETURNING), as each statement is a round trip of its own and the submission path pays them all.
 */
export async function insertPendingDocument(
  tx: Queryable,
  tenantId: string,
  d: NewDocument,
  firstJob: Omit<EnqueueOptions<unknown>, 'pendingKey'>,
): Promise<boolean> {
  const job = enqueueCtes(firstJob, 'inserted', 23);
  const r = await tx.query(
    `WITH inserted AS (
       INSERT INTO documents (id, tenant_id, clave, tipo_doc, emisor, sucursal, terminal, numero_referencia,
         consecutivo, fecha_emision, fecha_emision_text, ambiente, receptor_tipo, receptor_numero, estado,
         request_hash, xml, totals, callback_token_hash, callback_token_sealed, emisor_tipo, folio_type,
         correo_copias)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'pendiente', $15, $16, $17::jsonb, $18, $19, $20, $21,
         $22::jsonb)
       ON CONFLICT ON CONSTRAINT documents_number_unique DO NOTHING
       RETURNING tenant_id, id
     ),
     event AS (
       INSERT INTO document_events (tenant_id, document_id, estado)
       SELECT tenant_id, id, 'pendiente' FROM inserted
     ),
     ${job.sql}
     SELECT id FROM inserted`,
    [
      d.id,
      tenantId,
      d.clave,
      d.tipoDoc,
      d.emisor,
      d.sucursal,
      d.terminal,
      d.numeroReferencia,
      d.consecutivo,
      d.fechaEmision,
      d.fechaEmisionText,
      d.ambiente,
      d.receptor?.tipo ?? null,
      d.receptor?.numero ?? null,
      d.requestHash,
      d.xml,
      JSON.stringify(d.totals),
      d.callbackTokenHash,
      d.callbackTokenSealed,
      d.emisorTipo,
      d.folioType,
      d.copias?.length ? JSON.stringify(d.copias) : null,
      ...job.params,
    ],
  );
  const inserted = r.rows.length === 1;
  // Workers re-poll briefly after a wake-up, so a nudge that arrives before the commit is not lost.
  if (inserted) notifyJobsDue(firstJob.queue);
  return inserted;
}

export async function findByNumber(
  tx: Queryable,
  tenantId: string,
  n: DocumentNumber,
): Promise<{ id: string; clave: string; request_hash: string } | undefined> {
  const r = await tx.query<{ id: string; clave: string; request_hash: string }>(
    `SELECT id, clave, request_hash FROM documents
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
 * (MensajeReceptor) to the received document with that clave.
 */
export async function findDocumentOrAnswerByClave(
  tx: Queryable,
  tenantId: string,
  clave: string,
): Promise<DocumentRow | undefined> {
  const r = await tx.query<DocumentRow>(
    `SELECT * FROM documents WHERE tenant_id = $1 AND (clave = $2 OR clave_recibida = $2)
     ORDER BY (clave = $2) DESC, created_at DESC LIMIT 1`,
    [tenantId, clave],
  );
  return r.rows[0];
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

export async function countSubmitAttempt(tx: Queryable, tenantId: string, id: string): Promise<void> {
  await tx.query(
    'UPDATE documents SET submit_attempts = submit_attempts + 1, updated_at = now() WHERE tenant_id = $1 AND id = $2',
    [tenantId, id],
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
 * The CTEs that add a transition's event and jobs from its UPDATE's RETURNING (`updated`: tenant_id, id,
 * tipo_doc), parameters from `firstParam`: the event in `estado` (once per document and state), then each job
 * with its lane, as `job_<n>_job` (it returns the id of a job it added).
 */
function transitionCtes(
  estado: string,
  detalle: string | undefined,
  jobs: readonly TransitionJob[],
  firstParam: number,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [estado, detalle ?? null];
  const parts = [
    `event AS (
       INSERT INTO document_events (tenant_id, document_id, estado, detalle)
       SELECT tenant_id, id, $${firstParam}::text, $${firstParam + 1}::text FROM updated
       ON CONFLICT ON CONSTRAINT document_events_once DO NOTHING
     )`,
  ];
  jobs.forEach((j, i) => {
    let source = 'SELECT 1 FROM updated';
    if (j.evenIfUnchanged) source = 'SELECT 1';
    else if (j.unlessTipoDoc?.length) {
      params.push([...j.unlessTipoDoc]);
      source += ` WHERE tipo_doc <> ALL($${firstParam + params.length - 1}::text[])`;
    }
    parts.push(`source_${i} AS (${source})`);
    const ctes = enqueueCtes(j.job, `source_${i}`, firstParam + params.length, `job_${i}_`);
    parts.push(ctes.sql);
    params.push(...ctes.params);
  });
  return { sql: parts.join(',\n'), params };
}

/**
 * pendiente → enviado with its event, counting the submission that got there when `submitAttempt` says so,
 * and adds `next` (the status follow-up, `evenIfUnchanged`): one statement. Returns the document's tipoDoc when
 * this call made the transition (undefined when it had already happened, and then nothing is counted: the
 * caller counts its attempt apart), and whether `next` was added (false: a job with its key existed).
 */
export async function markEnviado(
  tx: Queryable,
  tenantId: string,
  id: string,
  detalle: string,
  next: TransitionJob,
  submitAttempt = false,
): Promise<{ tipoDoc: string | undefined; added: boolean }> {
  const ctes = transitionCtes('enviado', detalle, [next], 4);
  const r = await tx.query<{ tipo_doc: string | null; added: boolean }>(
    `WITH updated AS (
       UPDATE documents SET estado = 'enviado', submit_attempts = submit_attempts + $3, updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND estado = 'pendiente'
       RETURNING tenant_id, id, tipo_doc
     ),
     ${ctes.sql}
     SELECT (SELECT tipo_doc FROM updated) AS tipo_doc, EXISTS (SELECT 1 FROM job_0_job) AS added`,
    [tenantId, id, submitAttempt ? 1 : 0, ...ctes.params],
  );
  const row = r.rows[0];
  // Workers re-poll briefly after a wake-up, so a nudge that arrives before the commit is not lost.
  if (row?.added) notifyJobsDue(next.job.queue);
  return { tipoDoc: row?.tipo_doc ?? undefined, added: row?.added === true };
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
 * pendiente/enviado → a final state with its event and the jobs that follow from it (`then`), one statement.
 * The document's tipoDoc when this call made the transition; undefined when it had already happened (and
 * then neither an event nor a job is added).
 */
export async function markFinal(
  tx: Queryable,
  tenantId: string,
  id: string,
  v: FinalValues,
  detalle: string,
  then: readonly TransitionJob[],
): Promise<string | undefined> {
  const ctes = transitionCtes(v.estado, detalle, then, 10);
  const r = await tx.query<{ tipo_doc: string }>(
    `WITH updated AS (
       UPDATE documents SET estado = $3, error_cause = COALESCE($4, error_cause), respuesta_xml = $5,
         mensaje = $6, detalle = $7::jsonb, respuesta_verificacion = $8::jsonb, respuesta_totales = $9::jsonb,
         updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND estado IN ('pendiente', 'enviado')
       RETURNING tenant_id, id, tipo_doc
     ),
     ${ctes.sql}
     SELECT tipo_doc FROM updated`,
    [
      tenantId,
      id,
      v.estado,
      v.errorCause ?? null,
      v.respuestaXml ?? null,
      v.mensaje ?? null,
      v.detalle === undefined ? null : JSON.stringify(v.detalle),
      v.verificacion === undefined ? null : JSON.stringify(v.verificacion),
      v.totales === undefined ? null : JSON.stringify(v.totales),
      ...ctes.params,
    ],
  );
  const tipoDoc = r.rows[0]?.tipo_doc;
  if (tipoDoc !== undefined) {
    for (const j of then)
      if (!('unlessTipoDoc' in j && j.unlessTipoDoc?.includes(tipoDoc))) notifyJobsDue(j.job.queue);
  }
  return tipoDoc;
}

/**
 * unsafe: crosses tenants on purpose. Hacienda's callback names no tenant, only the per-document token;
 * runs as the owning role outside withTenant and returns only where the document lives.
 */
export async function unsafeFindByCallbackTokenHash(
  db: Db,
  hash: string,
): Promise<{ tenantId: string; id: string; estado: Estado } | undefined> {
  const r = await db.query<{ tenant_id: string; id: string; estado: Estado }>(
    'SELECT tenant_id, id, estado FROM documents WHERE callback_token_hash = $1',
    [hash],
  );
  const row = r.rows[0];
  return row ? { tenantId: row.tenant_id, id: row.id, estado: row.estado } : undefined;
}
