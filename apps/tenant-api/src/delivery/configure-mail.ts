// Use case of POST /api/configurar/correo: the tenant's own SMTP server (its host checked against the SSRF
// policy now, and again at every connection), or `{predeterminado: true}` to return to the platform's. The
// body replaces the settings; the password is sealed before it is stored and never shown again. STARTTLS is
// required unless the tenant says its server has no TLS (`requiereTls: false`), and then it gets no password:
// sent in clear, anyone on the path would read it.
import { CorreoConfigRequest, type CorreoConfigResponse } from '@cr/contracts';
import { AppError, parseBody } from '@cr/service-kit';
import { FIRST_UNPRIVILEGED_PORT, TargetRefusedError } from '@cr/webhooks';
import { withTenant } from '../db/with-tenant';
import { describeMail } from './get-mail';
import type { MailDeps } from './mail-deps';
import {
  type MailSettingsRow,
  deleteMailSettings,
  saveMailSettings,
  sealMailPassword,
} from './mail-settings-repository';
import { resolveSmtpHost } from './smtp-server';

function refuse(reason: string): never {
  throw new AppError('bad_request', `host: ${reason}`, { details: [{ path: 'host', reason }] });
}

// SMTP's ports (RFC 5321, 8314; 2525 is above 1024) and any port from 1024. The others below 1024 are other
// services' (SSH, HTTP, databases' admin ports): a tenant's "SMTP server" there would be a probe of that
// service from the platform's address, its banner read back from the attempt's reply.
const SMTP_PORTS = new Set([25, 465, 587]);

function checkPort(port: number): void {
  if (SMTP_PORTS.has(port) || port >= FIRST_UNPRIVILEGED_PORT) return;
  const reason = `${port} is not an SMTP port; use 25, 465, 587 or a port from 1024`;
  throw new AppError('bad_request', `port: ${reason}`, { details: [{ path: 'port', reason }] });
}

async function checkHost(deps: MailDeps, host: string): Promise<void> {
  try {
    await resolveSmtpHost(host, deps.mail.allowPrivateHosts);
  } catch (err) {
    if (err instanceof TargetRefusedError)
      refuse('must not resolve to a private, loopback or reserved address');
    const code = (err as NodeJS.ErrnoException).code;
    refuse(`${host} could not be resolved${code ? ` (${code})` : ''}`);
  }
}

export async function configureMail(
  deps: MailDeps,
  input: { tenantId: string; body: unknown },
): Promise<CorreoConfigResponse['data']> {
  const body = parseBody(CorreoConfigRequest, input.body);
  const { tenantId } = input;
  if ('predeterminado' in body) {
    await withTenant(deps.db, tenantId, (tx) => deleteMailSettings(tx, tenantId));
    deps.logger.info('e-mail settings removed; the platform server sends', { tenantId });
    return describeMail(deps.mail, undefined);
  }
  if (body.password !== undefined && body.usuario === undefined) {
    throw new AppError('bad_request', 'usuario: is required with a password', {
      details: [{ path: 'usuario', reason: 'is required with a password' }],
    });
  }
  const secure = body.secure ?? body.port === 465;
  // With `secure` the connection is TLS from the first byte: the flag is moot, and stored as true.
  if (!secure && body.requiereTls === false && body.password !== undefined) {
    const reason = 'must not be false with a password: credentials are never sent without TLS';
    throw new AppError('bad_request', `requiereTls: ${reason}`, {
      details: [{ path: 'requiereTls', reason }],
    });
  }
  checkPort(body.port);
  const host = body.host.toLowerCase();
  await checkHost(deps, host);
  const row: MailSettingsRow = {
    host,
    port: body.port,
    secure,
    require_tls: secure || (body.requiereTls ?? true),
    username: body.usuario ?? null,
    password_sealed:
      body.password === undefined ? null : sealMailPassword(deps.secrets, tenantId, body.password),
    secrets_key_id: body.password === undefined ? null : deps.secrets.currentKeyId,
    from_address: body.remitente,
    from_name: body.nombreRemitente ?? null,
  };
  await withTenant(deps.db, tenantId, (tx) => saveMailSettings(tx, tenantId, row, deps.now()));
  deps.logger.info('e-mail settings configured', {
    tenantId,
    host,
    port: row.port,
    requireTls: row.require_tls,
  });
  return describeMail(deps.mail, row);
}
