import { validate } from './ajv';
import { CorreoResendRequest } from './delivery.schema';

const resendTo = (address: string) => ({ clave: '5'.repeat(50), destinatarios: [address] });

describe('EmailAddress', () => {
  it.each(['a@b.cr', 'facturas@acme.co.cr', 'first.last+tag@sub.example.com', "o'neil@example.org"])(
    'when the address is %s, then it is valid',
    (address) => {
      expect(validate(CorreoResendRequest, resendTo(address)).ok).toBe(true);
    },
  );

  it.each([
    'no-at.example.com',
    'a@nodot',
    'a@b..cr',
    'a@.b.cr',
    'a@b.cr.',
    'a b@c.cr',
    'a@b.cr\r\nBcc: x@y.cr',
    '<a@b.cr>',
    'a@b@c.cr',
  ])('when the address is %j, then it is refused', (address) => {
    expect(validate(CorreoResendRequest, resendTo(address)).ok).toBe(false);
  });

  it('when an address is 256 KB of dots after the @, then it is refused in one pass', () => {
    // Quadratic with the old pattern: minutes of the event loop for one request body.
    expect(validate(CorreoResendRequest, resendTo(`a@${'.'.repeat(260_000)} `)).ok).toBe(false);
  });
});
