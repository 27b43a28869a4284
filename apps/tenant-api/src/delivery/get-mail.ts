// Use case of POST /api/consultar/correo: whose SMTP server sends the tenant's e-mail and how it is set.
// Never the password (only whether there is one), and of the platform's server only its address.
import type { CorreoConfigResponse } from '@cr/contracts';
import { parseNoFields } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import type { MailDeps, MailSettings } from './mail-deps';
import { type MailSettingsRow, findMailSettings } from './mail-settings-repository';
import { platformServer } from './smtp-server';

export function describeMail(
  settings: MailSettings,
  row: MailSettingsRow | undefined,
): CorreoConfigResponse['data'] {
  if (row) {
    return {
      origen: 'tenant',
      host: row.host,
      port: row.port,
      secure: row.secure,
      requiereTls: row.require_tls,
      usuario: row.username,
      tienePassword: row.password_sealed !== null,
      remitente: row.from_address,
    };
  }
  const platform = platformServer(settings);
  return {
    origen: 'plataforma',
    host: platform?.host ?? null,
    port: platform?.port ?? null,
    secure: platform?.secure ?? null,
    requiereTls: null,
    usuario: null,
    tienePassword: false,
    remitente: platform ? settings.from : null,
  };
}

export async function getMail(
  deps: Pick<MailDeps, 'db' | 'mail'>,
  input: { tenantId: string; body?: unknown },
): Promise<CorreoConfigResponse['data']> {
  parseNoFields(input.body);
  const row = await withTenant(
    deps.db,
    input.tenantId,
    (tx) => findMailSettings(tx, input.tenantId),
    ONE_STATEMENT,
  );
  return describeMail(deps.mail, row);
}
