// Loud warnings about issuer certificates that expire soon: a document signed with an expired key is
// rejected by Hacienda, so once it expires the issuer's submissions are refused (certificate-validity.ts),
// and renewal takes the taxpayer a visit to ATV. Checked at registration, at start and daily.
import type { Db, Logger } from '@cr/service-kit';
import type { IssuerDeps } from './issuer-deps';
import { unsafeListCertificatesExpiringBefore } from './issuer-repository';

const DAY_MS = 86_400_000;

/** Whole days from `now` until `notAfter`; negative once it has passed. */
export function daysUntil(notAfter: Date, now: Date): number {
  return Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS);
}

export function warnIfExpiringSoon(
  deps: Pick<IssuerDeps, 'logger' | 'now' | 'certificateWarningDays'>,
  tenantId: string,
  identificacion: string,
  notAfter: Date,
): boolean {
  const daysLeft = daysUntil(notAfter, deps.now());
  if (daysLeft >= deps.certificateWarningDays) return false;
  deps.logger.warn(
    `CERTIFICATE EXPIRES SOON: issuer ${identificacion} of tenant ${tenantId} has a Hacienda certificate that ${
      daysLeft < 0 ? 'has expired' : `expires in ${daysLeft} days`
    } (${notAfter.toISOString()}); upload a renewed .p12 with /api/actualizar/emisor`,
    { tenantId, identificacion, notAfter: notAfter.toISOString(), daysLeft },
  );
  return true;
}

export interface CertificateExpiryWatchOptions {
  db: Db;
  logger: Logger;
  now: () => Date;
  certificateWarningDays: number;
}

/** Warns about every certificate expiring within the warning window; returns how many. */
export async function checkCertificateExpiries(options: CertificateExpiryWatchOptions): Promise<number> {
  const horizon = new Date(options.now().getTime() + options.certificateWarningDays * DAY_MS);
  const expiring = await unsafeListCertificatesExpiringBefore(options.db, horizon);
  for (const e of expiring) warnIfExpiringSoon(options, e.tenantId, e.identificacion, e.notAfter);
  return expiring.length;
}

/** Checks now and then once a day; returns the stopper. */
export function watchCertificateExpiries(options: CertificateExpiryWatchOptions): () => void {
  const run = () =>
    checkCertificateExpiries(options).catch((err: unknown) =>
      options.logger.error('certificate expiry check failed', { err }),
    );
  void run();
  const timer = setInterval(run, DAY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
