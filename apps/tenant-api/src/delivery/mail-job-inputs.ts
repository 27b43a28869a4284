// What a run of the e-mail job reads before it sends, in one statement: the document, its e-mail when an
// earlier run recorded it, the tenant's own SMTP settings and its branding. Four reads were four round trips
// for every e-mail (four messages each way to the embedded database's thread).
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
  settings: MailSettingsRow | undefined;
  branding: BrandingRow | undefined;
}

type Row = DocumentForMail &
  JoinedBranding & {
    message_id: string | null;
    message_document_id: string;
    message_reason: MailMessageRow['reason'];
    message_recipients: string[];
    message_state: MailMessageRow['state'];
    message_created_at: Date | string;
    has_settings: boolean;
    smtp_host: string;
    smtp_port: number;
    smtp_secure: boolean;
    smtp_username: string | null;
    smtp_password_sealed: string | null;
    smtp_secrets_key_id: string | null;
    smtp_from_address: string;
    smtp_from_name: string | null;
  };

/** The inputs of e-mail `messageId` of document `documentId`; undefined when the document is not the tenant's. */
export async function findMailJobInputs(
  tx: Queryable,
  tenantId: string,
  documentId: string,
  messageId: string,
): Promise<MailJobInputs | undefined> {
  const r = await tx.query<Row>(
    `SELECT d.id, d.clave, d.estado, d.tipo_doc, d.xml, d.respuesta_xml, d.correo_copias,
            m.id AS message_id, m.document_id AS message_document_id, m.reason AS message_reason, m.recipients AS message_recipients,
            m.state AS message_state, m.created_at AS message_created_at,
            s.tenant_id IS NOT NULL AS has_settings, s.host AS smtp_host, s.port AS smtp_port,
            s.secure AS smtp_secure, s.username AS smtp_username, s.password_sealed AS smtp_password_sealed,
            s.secrets_key_id AS smtp_secrets_key_id, s.from_address AS smtp_from_address,
            s.from_name AS smtp_from_name,
            ${JOINED_BRANDING_COLUMNS}
     FROM documents d
     LEFT JOIN mail_messages m ON m.tenant_id = d.tenant_id AND m.id = $3
     LEFT JOIN tenant_mail_settings s ON s.tenant_id = d.tenant_id
     LEFT JOIN tenant_branding b ON b.tenant_id = d.tenant_id
     WHERE d.tenant_id = $1 AND d.id = $2`,
    [tenantId, documentId, messageId],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  return {
    doc: documentForMailOf(row),
    message:
      row.message_id === null
        ? undefined
        : mailMessageOf({
            id: row.message_id,
            document_id: row.message_document_id,
            reason: row.message_reason,
            recipients: row.message_recipients,
            state: row.message_state,
            created_at: row.message_created_at,
          }),
    settings: row.has_settings
      ? mailSettingsOf({
          host: row.smtp_host,
          port: row.smtp_port,
          secure: row.smtp_secure,
          username: row.smtp_username,
          password_sealed: row.smtp_password_sealed,
          secrets_key_id: row.smtp_secrets_key_id,
          from_address: row.smtp_from_address,
          from_name: row.smtp_from_name,
        })
      : undefined,
    branding: joinedBrandingOf(row),
  };
}
