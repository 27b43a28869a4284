// Which SMTP server sends a tenant's e-mail, and where the connection really goes. A tenant's host is
// tenant input: an SSRF vector like a webhook URL. It is resolved here with the webhooks' guarded lookup
// (private, loopback and reserved addresses refused unless MAIL_ALLOW_PRIVATE_HOSTS) and the connection is
// made to the address checked, never to the name again, so a DNS answer that changes in between (rebinding)
// cannot steer it inside; TLS still verifies the certificate against the name. SMTP_URL is the operator's
// own setting and is used as given.
//
// Without `secure` (TLS from the first byte) nodemailer upgrades with STARTTLS only when the server offers
// it: an attacker on the path who strips that offer from the EHLO reply gets AUTH and the message in clear.
// So STARTTLS is required (`requireTls`) wherever credentials go, and on a tenant's server unless the tenant
// said it has no TLS (then it has no password either: configure-mail.ts).
import { allowedAddresses } from '@cr/webhooks';
import type { MailSettings } from './mail-deps';
import { type MailSettingsRow, openMailPassword } from './mail-settings-repository';
import type { SecretBox } from '@cr/service-kit';

export interface SmtpServer {
  /** The name the tenant or the operator gave (TLS servername, logs). */
  host: string;
  /** The address to connect to: the checked address of a tenant's host, the platform's host as given. */
  connectTo: string;
  port: number;
  /** TLS from the first byte (smtps, port 465). */
  secure: boolean;
  /** Without `secure`: STARTTLS before anything else, or no AUTH and no message (the attempt fails). */
  requireTls: boolean;
  auth?: { user: string; pass: string };
  /** The platform's MAIL_FROM as written, or a tenant's name and address for nodemailer to quote. */
  from: string | { name: string; address: string };
  origin: 'tenant' | 'plataforma';
}

/** The address `host` resolves to, if the policy allows it; rejects with TargetRefusedError or a DNS error. */
export async function resolveSmtpHost(host: string, allowPrivateHosts: boolean): Promise<string> {
  const policy = { allowPrivateTargets: allowPrivateHosts, allowHttpLoopback: false };
  // The first address (IPv4 first), as a socket's single-address lookup would connect to.
  return (await allowedAddresses(host, policy))[0]!.address;
}

/**
 * SMTP_URL as a server (smtps: → TLS from the first byte; user and password from the URL). With credentials,
 * smtp: requires STARTTLS; without them (the local mail catcher of `pnpm start`, a relay that trusts the
 * platform's address) it stays opportunistic, as a server without TLS must still get the mail.
 */
export function platformServer(settings: MailSettings): SmtpServer | undefined {
  if (!settings.smtpUrl) return undefined;
  const url = new URL(settings.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    host,
    connectTo: host,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTls: url.username !== '',
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    from: settings.from,
    origin: 'plataforma',
  };
}

/**
 * The tenant's sender. Given as parts, nodemailer quotes and encodes the name itself: pasted into a
 * `"name" <address>` string, a name ending in a backslash escaped the closing quote and broke the address.
 */
function fromHeader(row: MailSettingsRow): SmtpServer['from'] {
  return row.from_name ? { name: row.from_name, address: row.from_address } : row.from_address;
}

/** The tenant's own server, its host resolved and checked now (at every attempt). */
export async function tenantServer(
  box: SecretBox,
  settings: MailSettings,
  tenantId: string,
  row: MailSettingsRow,
): Promise<SmtpServer> {
  return {
    host: row.host,
    connectTo: await resolveSmtpHost(row.host, settings.allowPrivateHosts),
    port: row.port,
    secure: row.secure,
    // A row with a password always requires it (configure-mail.ts and migration 0095 see to that); checked
    // again here so that no row, however it was written, sends a password without TLS.
    requireTls: row.require_tls || row.password_sealed !== null,
    ...(row.username && row.password_sealed
      ? { auth: { user: row.username, pass: openMailPassword(box, tenantId, row.password_sealed) } }
      : {}),
    from: fromHeader(row),
    origin: 'tenant',
  };
}
