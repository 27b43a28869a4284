// Everything an issuer's registration must satisfy beyond the contract's shape: identification per type,
// activity code form, phone digits, address in Hacienda's territorial table, base64 that decodes, and a
// .p12 that opens with the PIN (iteration counts and total work capped, off the event loop), holds an RSA key
// of 2048 to 4096 bits, is valid today and belongs to the issuer. Every failure is collected into one 400
// naming each field and its reason.
import { EmisorRegistration } from '@cr/contracts';
import { formatCostaRicaDateTime } from '@cr/hacienda-xml';
import { AppError, parseBody } from '@cr/service-kit';
import type { ErrorDetail } from '@cr/contracts';
import type { TerritorialTable } from '../territory/territorial-table';
import { CertificateError, type OpenedCertificate } from './certificate';
import { certificateDateProblem } from './certificate-validity';
import type { CertificateOpener } from './p12-pool';
import { checkCertificateOwner, checkIdentificationShape } from './identification';

export interface ValidRegistration {
  body: EmisorRegistration;
  certificate: OpenedCertificate;
  p12: Buffer;
  /** The legal name: `nombre`, or the certificate's CN. */
  nombre: string;
  codigoActividad: string;
}

export interface ValidationContext {
  /** Absent when HACIENDA_DATA_DIR has no table: codes are then checked by shape only. */
  territory: TerritorialTable | undefined;
  now: Date;
  /** Opens the .p12 off the event loop (iteration counts checked first, time-limited). */
  certificates: CertificateOpener;
}

/** Strict base64 (padding included) that decodes to at least one byte. */
export function decodeBase64(value: string): Buffer | undefined {
  if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0 || bytes.toString('base64') !== value) return undefined;
  return bytes;
}

/** 6201.0 → "6201.0" (CIIU 4 form NNNN.N); 721001 → "721001" (the older 6-digit form). */
export function formatActivityCode(code: number): string | undefined {
  if (Number.isInteger(code) && code >= 100000) return String(code);
  const tenths = Math.round(code * 10);
  if (Math.abs(code * 10 - tenths) > 1e-9 || code < 1000 || code >= 10000) return undefined;
  return (tenths / 10).toFixed(1);
}

/** The body's shape (EmisorRegistration): checked before the tenant's issuer-write slot is taken. */
export function parseRegistration(input: unknown): EmisorRegistration {
  return parseBody(EmisorRegistration, input);
}

/** The rest, on a body of the right shape: this is where the .p12 is opened. */
export async function validateRegistration(
  body: EmisorRegistration,
  ctx: ValidationContext,
): Promise<ValidRegistration> {
  const problems: ErrorDetail[] = [];
  const fail = (path: string, reason: string) => problems.push({ path, reason });

  const idProblem = checkIdentificationShape(body.identificacion, body.tipoIdentificacion);
  if (idProblem) fail('identificacion', idProblem);

  const codigoActividad = formatActivityCode(body.codigoActividad);
  if (!codigoActividad)
    fail('codigoActividad', 'must be a CIIU 4 code NNNN.N (e.g. 6201.0) or a 6-digit code');

  const phoneDigits = body.telefono.replace(/\D/g, '').length;
  if (phoneDigits < 8 || phoneDigits > 20) fail('telefono', `must have 8 to 20 digits; got ${phoneDigits}`);

  if (ctx.territory) {
    const where = ctx.territory.check(body.ubicacion);
    if (where) fail(`ubicacion.${where.field}`, where.reason);
  }

  if (!decodeBase64(body.claveHacienda)) fail('claveHacienda', 'is not valid base64');

  const p12 = decodeBase64(body.certificadoHacienda);
  let certificate: OpenedCertificate | undefined;
  if (!p12) fail('certificadoHacienda', 'is not valid base64');
  else {
    try {
      certificate = await ctx.certificates.open(p12, body.pinCertificado);
    } catch (err) {
      if (!(err instanceof CertificateError)) throw err;
      if (err.code === 'wrong_pin') fail('pinCertificado', err.message);
      else fail('certificadoHacienda', err.message);
    }
  }
  if (certificate) {
    // The instant in Costa Rica time with its offset: a UTC date is the next day's from 18:00 there.
    const dates = certificateDateProblem(certificate, ctx.now);
    if (dates) {
      const at = formatCostaRicaDateTime(dates.at);
      fail(
        'certificadoHacienda',
        dates.kind === 'expired' ? `certificate expired at ${at}` : `certificate is not valid until ${at}`,
      );
    }
    if (!idProblem) {
      const owner = checkCertificateOwner(
        certificate.subjectSerialNumber,
        body.identificacion,
        body.tipoIdentificacion,
      );
      if (owner) fail('certificadoHacienda', owner);
    }
  }

  const nombre = body.nombre ?? certificate?.commonName;
  if (certificate && (!nombre || nombre.length < 1)) {
    fail('nombre', 'is required when the certificate subject has no name');
  }

  if (problems.length > 0) {
    throw new AppError('bad_request', problems.map((p) => `${p.path}: ${p.reason}`).join('; '), {
      details: problems,
    });
  }
  return { body, certificate: certificate!, p12: p12!, nombre: nombre!, codigoActividad: codigoActividad! };
}
