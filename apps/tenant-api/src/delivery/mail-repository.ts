// SQL of the e-mail log: each e-mail of a document (mail_messages) and every attempt to hand it to an SMTP
// server (mail_attempts). Every function runs inside withTenant and still names its tenant.
import { randomUUID } from 'node:crypto';
import type { CorreoEnvio } from '@cr/contracts';
import { CteWrites, type Queryable } from '@cr/service-kit';

export interface MailMessageRow {
  id: string;
  document_id: string;
  reason: 'aceptado' | 'reenvio';
  recipients: string[];
  /** Recipients a server took in an earlier attempt while it refused others (migration 0099). */
  delivered_to: string[];
  state: 'pendiente' | 'enviado' | 'fallido';
  created_at: Date | string;
}

const parseJson = (v: unknown): string[] => (typeof v === 'string' ? JSON.parse(v) : (v as string[]));

export function mailMessageOf(row: MailMessageRow): MailMessageRow {
  const { id, document_id, reason, state, created_at } = row;
  return {
    id,
    document_id,
    reason,
    recipients: parseJson(row.recipients),
    delivered_to: parseJson(row.delivered_to ?? []),
    state,
    created_at,
  };
}

/** The recipients of `message` no server has taken yet: the ones its next attempt goes to. */
export function undeliveredRecipients(
  message: Pick<MailMessageRow, 'recipients' | 'delivered_to'>,
): string[] {
  const taken = new Set(message.delivered_to.map((a) => a.toLowerCase()));
  return message.recipients.filter((a) => !taken.has(a.toLowerCase()));
}

export async function insertMailMessage(
  tx: Queryable,
  tenantId: string,
  m: { id: string; documentId: string; reason: MailMessageRow['reason']; recipients: string[] },
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO mail_messages (id, tenant_id, document_id, reason, recipients, created_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6)`,
    [m.id, tenantId, m.documentId, m.reason, JSON.stringify(m.recipients), at],
  );
}

/** As much of an SMTP server's reply as an attempt keeps (and a log line shows): the server chooses it. */
export const KEPT_REPLY_CHARS = 1_000;

/**
 * An attempt to hand e-mail `messageId` to an SMTP server, as the writes of one statement (its job's record
 * joins them, JobContext.finishIn): the attempt's row and, when it settles the e-mail, its final state.
 */
export function mailAttemptWrites(
  tenantId: string,
  a: {
    messageId: string;
    attempt: number;
    ok: boolean;
    code: number | null;
    reply: string;
    at: Date;
    /** Recipients the server took while it refused others: the e-mail's next attempt skips them. */
    delivered?: readonly string[];
  },
  end?: 'enviado' | 'fallido',
): CteWrites {
  const w = new CteWrites();
  const tenant = w.param(tenantId);
  const message = w.param(a.messageId);
  const at = w.param(a.at);
  const [id, attempt, ok, code, reply] = [
    randomUUID(),
    a.attempt,
    a.ok,
    a.code,
    a.reply.slice(0, KEPT_REPLY_CHARS),
  ].map((v) => w.param(v));
  w.add(
    'attempt',
    `INSERT INTO mail_attempts (id, tenant_id, message_id, attempt, ok, code, reply, created_at)
     VALUES (${id}, ${tenant}, ${message}, ${attempt}, ${ok}, ${code}, ${reply}, ${at})`,
  );
  // One UPDATE of the e-mail's row: two in one statement would each see the row as before, and one be lost.
  const sets = [
    ...(end ? [`state = ${w.param(end)}`, `finished_at = ${at}`] : []),
    ...(a.delivered?.length
      ? [`delivered_to = delivered_to || ${w.param(JSON.stringify(a.delivered))}::jsonb`]
      : []),
  ];
  if (sets.length > 0) {
    w.add(
      'message',
      `UPDATE mail_messages SET ${sets.join(', ')} WHERE tenant_id = ${tenant} AND id = ${message}`,
    );
  }
  return w;
}

interface MailAttemptJson {
  attempt: number;
  ok: boolean;
  code: number | null;
  reply: string | null;
  created_at: string;
}

/**
 * The latest `limit` e-mails of a document with their attempts, oldest first (consultar/documento's
 * `correo.envios`), and how many e-mails it has in all. Each resend adds one and none is ever deleted, so
 * only the latest are read. One statement: the total is a count beside the LIMIT (a window count would carry
 * every row through the sort), and each e-mail's attempts (a few: its retries) come with it as a JSON array.
 */
export async function listRecentMailOfDocument(
  tx: Queryable,
  tenantId: string,
  documentId: string,
  limit: number,
): Promise<{ envios: CorreoEnvio[]; total: number }> {
  const r = await tx.query<MailMessageRow & { total: string | number; attempts: unknown }>(
    `SELECT m.*, COALESCE((
         SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt, 'ok', a.ok, 'code', a.code, 'reply', a.reply,
                                             'created_at', a.created_at) ORDER BY a.attempt)
         FROM mail_attempts a WHERE a.tenant_id = $1 AND a.message_id = m.id), '[]'::jsonb) AS attempts
     FROM (SELECT id, document_id, reason, recipients, state, created_at,
                  (SELECT count(*) FROM mail_messages WHERE tenant_id = $1 AND document_id = $2) AS total
           FROM mail_messages WHERE tenant_id = $1 AND document_id = $2
           ORDER BY created_at DESC, id DESC LIMIT $3) AS m
     ORDER BY m.created_at, m.id`,
    [tenantId, documentId, limit],
  );
  const envios = r.rows.map((m) => ({
    envioId: m.id,
    motivo: m.reason,
    destinatarios: parseJson(m.recipients),
    estado: m.state,
    intentos: parseAttempts(m.attempts).map((a) => ({
      intento: Number(a.attempt),
      ok: a.ok,
      codigo: a.code === null ? null : Number(a.code),
      respuesta: a.reply,
      fecha: new Date(a.created_at).toISOString(),
    })),
    fecha: new Date(m.created_at).toISOString(),
  }));
  return { envios, total: Number(r.rows[0]?.total ?? 0) };
}

const parseAttempts = (v: unknown): MailAttemptJson[] =>
  typeof v === 'string' ? JSON.parse(v) : (v as MailAttemptJson[]);

export interface DocumentForMail {
  id: string;
  clave: string;
  estado: string;
  tipo_doc: string;
  xml: string;
  respuesta_xml: string | null;
  correo_copias: string[] | null;
}

export async function findDocumentForMail(
  tx: Queryable,
  tenantId: string,
  where: { id: string } | { clave: string },
): Promise<DocumentForMail | undefined> {
  const [column, value] = 'id' in where ? ['id', where.id] : ['clave', where.clave];
  const r = await tx.query<DocumentForMail>(
    `SELECT id, clave, estado, tipo_doc, xml, respuesta_xml, correo_copias FROM documents
     WHERE tenant_id = $1 AND ${column} = $2`,
    [tenantId, value],
  );
  const row = r.rows[0];
  return row ? documentForMailOf(row) : undefined;
}

export function documentForMailOf(row: DocumentForMail): DocumentForMail {
  const { id, clave, estado, tipo_doc, xml, respuesta_xml } = row;
  const correo_copias = row.correo_copias === null ? null : parseJson(row.correo_copias);
  return { id, clave, estado, tipo_doc, xml, respuesta_xml, correo_copias };
}
