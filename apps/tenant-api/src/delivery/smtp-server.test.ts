// A tenant's settings row as the server an attempt connects to: the password opened from its seal for AUTH,
// and STARTTLS required wherever a password goes, whatever the row says; without a password, as the tenant
// set it. (What nodemailer then does with `requireTls` is smtp-connections.test.ts's, against a real server.)
import { SecretBox } from '@cr/service-kit';
import { DEFAULT_MAIL_SETTINGS } from './mail-deps';
import { mailSettingsRow } from '../../test/support/mail-settings-row';
import { sealMailPassword } from './mail-settings-repository';
import { tenantServer } from './smtp-server';

const box = SecretBox.fromSetting(SecretBox.generateSetting('k1'));
const settings = { ...DEFAULT_MAIL_SETTINGS, allowPrivateHosts: true };

const withPassword = (requireTls: boolean) =>
  mailSettingsRow({
    require_tls: requireTls,
    username: 'facturas@acme.cr',
    password_sealed: sealMailPassword(box, 'acme', 'smtp-secret'),
    secrets_key_id: box.currentKeyId,
  });

describe('tenantServer', () => {
  it('when the row has a password, then AUTH gets it opened and STARTTLS is required', async () => {
    expect(await tenantServer(box, settings, 'acme', withPassword(true))).toMatchObject({
      connectTo: '127.0.0.1',
      secure: false,
      requireTls: true,
      auth: { user: 'facturas@acme.cr', pass: 'smtp-secret' },
      origin: 'tenant',
    });
  });

  it('when a row with a password says TLS is not required (not through the API), then it is required all the same', async () => {
    expect(await tenantServer(box, settings, 'acme', withPassword(false))).toMatchObject({
      requireTls: true,
      auth: { pass: 'smtp-secret' },
    });
  });

  it('when the row has no password, then STARTTLS is required or not as the tenant set it', async () => {
    for (const requireTls of [true, false]) {
      const server = await tenantServer(box, settings, 'acme', mailSettingsRow({ require_tls: requireTls }));
      expect(server.requireTls).toBe(requireTls);
      expect(server.auth).toBeUndefined();
    }
  });
});
