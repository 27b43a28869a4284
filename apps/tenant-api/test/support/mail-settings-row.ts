// A tenant's SMTP settings row as the tests write it straight to tenant_mail_settings (what configure-mail
// would refuse, or what a row stored before a migration looks like): a plain server on 127.0.0.1:587 that
// requires STARTTLS, without credentials, unless `overrides` say otherwise.
import type { MailSettingsRow } from '../../src/delivery/mail-settings-repository';

export function mailSettingsRow(overrides: Partial<MailSettingsRow> = {}): MailSettingsRow {
  return {
    host: '127.0.0.1',
    port: 587,
    secure: false,
    require_tls: true,
    username: null,
    password_sealed: null,
    secrets_key_id: null,
    from_address: 'facturas@acme.cr',
    from_name: null,
    ...overrides,
  };
}
