// The tenant_mail_settings row: the tenant's own SMTP server. Its password is sealed (AES-256-GCM by the
// secret box) and bound to the tenant and the column, as the issuer secrets are, so a sealed value copied
// into another tenant's row does not open.
import type { Queryable, SecretBox } from '@cr/service-kit';

export interface MailSettingsRow {
  host: string;
  port: number;
  secure: boolean;
  /** STARTTLS required before AUTH and the message (meaningless with `secure`); false only without a password. */
  require_tls: boolean;
  username: string | null;
  password_sealed: string | null;
  secrets_key_id: string | null;
  from_address: string;
  from_name: string | null;
}

function passwordContext(tenantId: string): string {
  return `tenant-api:mail:${tenantId}:password`;
}

export function sealMailPassword(box: SecretBox, tenantId: string, password: string): string {
  return box.seal(password, passwordContext(tenantId));
}

export function openMailPassword(box: SecretBox, tenantId: string, sealed: string): string {
  return box.openText(sealed, passwordContext(tenantId));
}

export async function findMailSettings(
  tx: Queryable,
  tenantId: string,
): Promise<MailSettingsRow | undefined> {
  const r = await tx.query<MailSettingsRow>(
    `SELECT host, port, secure, require_tls, username, password_sealed, secrets_key_id, from_address, from_name
     FROM tenant_mail_settings WHERE tenant_id = $1`,
    [tenantId],
  );
  const row = r.rows[0];
  return row ? mailSettingsOf(row) : undefined;
}

/** node-postgres and PGlite agree on every column but may differ on the integer's type. */
export function mailSettingsOf(row: MailSettingsRow): MailSettingsRow {
  const { host, secure, require_tls, username, password_sealed, secrets_key_id, from_address, from_name } =
    row;
  return {
    host,
    port: Number(row.port),
    secure,
    require_tls,
    username,
    password_sealed,
    secrets_key_id,
    from_address,
    from_name,
  };
}

export async function saveMailSettings(
  tx: Queryable,
  tenantId: string,
  row: MailSettingsRow,
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO tenant_mail_settings
       (tenant_id, host, port, secure, username, password_sealed, secrets_key_id, from_address, from_name, updated_at,
        require_tls)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (tenant_id) DO UPDATE SET host = $2, port = $3, secure = $4, username = $5,
       password_sealed = $6, secrets_key_id = $7, from_address = $8, from_name = $9, updated_at = $10,
       require_tls = $11`,
    [
      tenantId,
      row.host,
      row.port,
      row.secure,
      row.username,
      row.password_sealed,
      row.secrets_key_id,
      row.from_address,
      row.from_name,
      at,
      row.require_tls,
    ],
  );
}

export async function deleteMailSettings(tx: Queryable, tenantId: string): Promise<void> {
  await tx.query('DELETE FROM tenant_mail_settings WHERE tenant_id = $1', [tenantId]);
}
