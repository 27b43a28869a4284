import { AppError } from '@cr/service-kit';
import { assertCertificateValidAt, certificateDateProblem } from './certificate-validity';

// 2026-12-08T21:22:45-06:00: after 18:00 in Costa Rica, so its UTC date is already the next day.
const NOT_AFTER = new Date('2026-12-09T03:22:45Z');
const NOT_BEFORE = new Date('2022-12-09T03:22:45Z');
const CERT = { notBefore: NOT_BEFORE, notAfter: NOT_AFTER };
const SIGNER = { field: 'emisor', identificacion: '3101123456' };

function refusal(now: Date): AppError | undefined {
  try {
    assertCertificateValidAt(CERT, now, SIGNER);
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

describe('assertCertificateValidAt', () => {
  it('when now is within the validity, both ends included, then it passes', () => {
    expect(refusal(NOT_BEFORE)).toBeUndefined();
    expect(refusal(new Date('2025-01-01T00:00:00Z'))).toBeUndefined();
    expect(refusal(NOT_AFTER)).toBeUndefined();
  });

  it('when now is a second past notAfter, then 422 naming the field and the expiry in Costa Rica time', () => {
    const err = refusal(new Date(NOT_AFTER.getTime() + 1_000));
    expect(err).toMatchObject({ code: 'unprocessable', status: 422 });
    expect(err?.message).toBe(
      'emisor: the certificate of issuer 3101123456 expired at 2026-12-08T21:22:45-06:00; upload a renewed .p12 with POST /api/actualizar/emisor',
    );
  });

  it('when now is a second before notBefore, then 422 naming the field and the start in Costa Rica time', () => {
    const err = refusal(new Date(NOT_BEFORE.getTime() - 1_000));
    expect(err).toMatchObject({ code: 'unprocessable', status: 422 });
    expect(err?.message).toBe(
      'emisor: the certificate of issuer 3101123456 is not valid until 2022-12-08T21:22:45-06:00; send the document from then on, or upload a .p12 valid now with POST /api/actualizar/emisor',
    );
  });
});

describe('certificateDateProblem, the reading registration shares with signing', () => {
  it('when now is exactly notAfter or notBefore, then no problem: registration accepts what signing accepts', () => {
    expect(certificateDateProblem(CERT, NOT_AFTER)).toBeUndefined();
    expect(certificateDateProblem(CERT, NOT_BEFORE)).toBeUndefined();
  });

  it('when now is a millisecond outside either end, then that end', () => {
    expect(certificateDateProblem(CERT, new Date(NOT_AFTER.getTime() + 1))).toEqual({
      kind: 'expired',
      at: NOT_AFTER,
    });
    expect(certificateDateProblem(CERT, new Date(NOT_BEFORE.getTime() - 1))).toEqual({
      kind: 'not-yet-valid',
      at: NOT_BEFORE,
    });
  });
});
