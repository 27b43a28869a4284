// What a run of the e-mail job reads before it sends, in one statement: the document, its e-mail when an
// earlier run recorded it (with its attempts so far), the tenant's own SMTP settings and its branding. Each read
// on its own was a round trip (a message each way to the embedded database's thread).
import type { Queryable } from '@cr/service-kit';
import {
  type BrandingRow,
  JOINED_BRANDING_COLUMNS,
  type JoinedBranding,
  joinedBrandingOf,
} from './branding-repository';
import {
  type DocumentForMail,
  type MailMessageRow,
  documentForMailOf,
  mailMessageOf,
} from './mail-repository';
import { type MailSettingsRow, mailSettingsOf } from './mail-settings-repository';

export interface MailJobInputs {
  doc: DocumentForMail;
  message: MailMessageRow | undefined;
  /** The attempts already recorded for `message` (0 without one). */
  attempts: number;
  /** Whether `message` was charged to MAIL_RESEND_NEW_ADDRESS_LIMIT (new-address-budget.ts); false without one. */
  newAddressCharged: boolean;
  settings: MailSettingsRow | undefined;
  branding: BrandingRow | undefined;
}

// The e-mail and the SMTP settings arrive as whole rows (to_jsonb), read by their repositories' mappers; a
// timestamp in them is an ISO string, which every use of created_at already accepts.
type Row = DocumentForMail &
  JoinedBranding & {
    message: MailMessageRow | null;
    attempts: string | number;
    new_address_charged: boolean | null;
    settings: MailSettingsRow | null;
  };

// What the run goes on to send with; on the paths where it stops (the document is not accepted, or the e-mail
// is no longer pendiente) the settings and the branding (a logo of up to 150 KB) are not read.
const SENDS = `d.estado = 'aceptado' AND d.respuesta_xml IS NOT NULL AND (m.id IS NULL OR m.state = 'pendiente')`;

/** The inputs of e-mail `messageId` of document `documentId`; undefined when the document is not the tenant's. */
export async function findMailJobInputs(
  tx: Queryable,
  tenantId: string,
  documentId: string,
  messageId: string,
): Promise<MailJobInputs | undefined> {
  const r = await tx.query<Row>(
    `SELECT d.id, d.clave, d.estado, d.tipo_doc, d.xml, d.respuesta_xml, d.correo_copias,
            to_jsonb(m) AS message, m.new_address_charged, to_jsonb(s) AS settings, ${JOINED_BRANDING_COLUMNS},
            (SELECT count(*) FROM mail_attempts a WHERE a.tenant_id = $1 AND a.message_id = m.id) AS attempts
     FROM documents d
     LEFT JOIN mail_messages m ON m.tenant_id = d.tenant_id AND m.id = $3
     LEFT JOIN tenant_mail_settings s ON s.tenant_id = d.tenant_id AND ${SENDS}
     LEFT JOIN tenant_branding b ON b.tenant_id = d.tenant_id AND ${SENDS}
     WHERE d.tenant_id = $1 AND d.id = $2`,
    [tenantId, documentId, messageId],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return {
    doc: documentForMailOf(row),
    message: row.message ? mailMessageOf(row.message) : undefined,
    attempts: Number(row.attempts),
    newAddressCharged: row.new_address_charged === true,
    settings: row.settings ? mailSettingsOf(row.settings) : undefined,
    branding: joinedBrandingOf(row),
  };
}

/** What decides whether a run of a recorded e-mail waits for the platform's budget (deliver-mail-job.ts). */
export interface MailJobGate {
  clave: string;
  estado: string;
  state: MailMessageRow['state'];
  /** The tenant has SMTP settings of its own: the platform's budget does not apply. */
  ownServer: boolean;
}

/**
 * The e-mail's state, its document's clave and estado and whether the tenant has a server of its own, in one
 * statement that reads neither of the document's XMLs nor the branding: what a run asks before deferring,
 * so a deferred e-mail's wake costs a few small columns. Undefined when the e-mail is not recorded yet.
 */
export async function findMailJobGate(
  tx: Queryable,
  tenantId: string,
  documentId: string,
  messageId: string,
): Promise<MailJobGate | undefined> {
  const r = await tx.query<{
    clave: string;
    estado: string;
    state: MailMessageRow['state'];
    own_server: boolean;
  }>(
    `SELECT d.clave, d.estado, m.state, s.tenant_id IS NOT NULL AS own_server
     FROM documents d
     JOIN mail_messages m ON m.tenant_id = d.tenant_id AND m.id = $3
     LEFT JOIN tenant_mail_settings s ON s.tenant_id = d.tenant_id
     WHERE d.tenant_id = $1 AND d.id = $2`,
    [tenantId, documentId, messageId],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return { clave: row.clave, estado: row.estado, state: row.state, ownServer: row.own_server === true };
}
