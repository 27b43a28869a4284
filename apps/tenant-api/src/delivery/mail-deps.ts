// What the e-mail use cases and the `mail.deliver` job need, and the job's payload. Built once by compose.ts.
import { randomBytes } from 'node:crypto';
import { backoffSchedules } from '@cr/jobs';
import type { Db, Logger, SecretBox } from '@cr/service-kit';
import type { TenantLimiter } from '../tenancy/tenant-rate-limit';
import type { SmtpConnections } from './smtp-connections';

export const MAIL_QUEUE = 'mail.deliver';

/** tipo_doc of a receiver's answer (MensajeReceptor 5/6/7): it goes to Hacienda, never e-mailed. */
export const RECEIVER_MESSAGES: readonly string[] = ['5', '6', '7'];

export interface MailSettings {
  /** SMTP_URL: the platform's server, for tenants without their own; unset → those tenants send none. */
  smtpUrl?: string | undefined;
  /** MAIL_FROM: the From of e-mails sent through SMTP_URL. */
  from: string;
  /** MAIL_TIMEOUT_MS: connect, greeting and each reply of one SMTP conversation. */
  timeoutMs: number;
  /** MAIL_ALLOW_PRIVATE_HOSTS: a tenant's SMTP host may resolve to a private or loopback address. */
  allowPrivateHosts: boolean;
  /** Delays before each retry; after the last one the e-mail is given up (fallido). */
  retryDelaysMs: readonly number[];
}

export const DEFAULT_MAIL_SETTINGS: MailSettings = {
  from: 'Facturación electrónica <facturacion@localhost>',
  timeoutMs: 30_000,
  allowPrivateHosts: false,
  retryDelaysMs: backoffSchedules.mail,
};

export interface MailDeps {
  db: Db;
  secrets: SecretBox;
  logger: Logger;
  now: () => Date;
  mail: MailSettings;
  /** Jitter of the retry schedule (tests pin it). */
  random?: () => number;
}

/** What the `mail.deliver` job needs besides: the open SMTP connections, closed on shutdown. */
export interface MailJobDeps extends MailDeps {
  smtp: SmtpConnections;
  /** MAIL_PLATFORM_LIMIT: a tenant's attempts through the platform's SMTP server (SMTP_URL) per window. */
  platformMailLimiter: TenantLimiter;
  /**
   * MAIL_RESEND_NEW_ADDRESS_LIMIT (the resends' limiter, ResendMailDeps): an e-mail the platform's server sends
   * to an address its document does not name, when the resend was not charged as it was asked for.
   */
  mailNewAddressLimiter: TenantLimiter;
}

/** Payload of a `mail.deliver` job: one e-mail (its row is written by the resend, or by the job's first run). */
export interface MailJobPayload {
  tenantId: string;
  documentId: string;
  messageId: string;
  reason: 'aceptado' | 'reenvio';
}

/** A new e-mail id: `env_` and 64 random bits. */
export function newMessageId(): string {
  return `env_${randomBytes(8).toString('hex')}`;
}
