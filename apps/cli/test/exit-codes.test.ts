// What a script sees of a refusal: every refusal that names what to change (a field, a limit) is exit 4.
import {
  BadRequestError,
  ConflictError,
  CrEinvoiceError,
  PayloadTooLargeError,
  UnprocessableError,
} from '@cr-einvoice/sdk';
import { EXIT, exitCodeOf } from '../src/exit-codes';

describe('exitCodeOf', () => {
  it.each([
    ['400', new BadRequestError('bad_request', 'receptor: is required', { status: 400 })],
    ['409', new ConflictError('conflict', 'numeroReferencia: already used', { status: 409 })],
    ['413', new PayloadTooLargeError('payload_too_large', 'request body exceeds the limit', { status: 413 })],
    ['422', new UnprocessableError('unprocessable', 'emisor: the certificate expired', { status: 422 })],
  ])('when the service refuses with %s, then exit 4 (refused)', (_status, err) => {
    expect(exitCodeOf(err)).toBe(EXIT.refused);
  });

  it('when the error is none the CLI knows, then exit 1', () => {
    expect(exitCodeOf(new CrEinvoiceError('odd', 'odd', { status: 418 }))).toBe(EXIT.failure);
  });
});
