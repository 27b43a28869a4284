import { generateWebhookSecret, signatureHeader, signPayload, verifySignature } from './signature';

describe('Standard Webhooks signatures', () => {
  const secret = generateWebhookSecret();
  const now = 1_760_000_000;

  it('when a payload is signed, then the receiver verifies it', () => {
    const sig = signPayload(secret, 'msg_1', now, '{"a":1}');
    expect(sig).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(
      verifySignature(secret, { id: 'msg_1', timestamp: String(now), signature: sig }, '{"a":1}', { now }),
    ).toBe(true);
  });

  it('when body, id or timestamp change, or the timestamp is stale, then verification fails', () => {
    const sig = signPayload(secret, 'msg_1', now, '{"a":1}');
    const h = { id: 'msg_1', timestamp: String(now), signature: sig };
    expect(verifySignature(secret, h, '{"a":2}', { now })).toBe(false);
    expect(verifySignature(secret, { ...h, id: 'msg_2' }, '{"a":1}', { now })).toBe(false);
    expect(verifySignature(secret, h, '{"a":1}', { now: now + 301 })).toBe(false);
    expect(verifySignature(generateWebhookSecret(), h, '{"a":1}', { now })).toBe(false);
  });

  it('when two secrets are active, then a receiver holding either one verifies', () => {
    const older = generateWebhookSecret();
    const header = signatureHeader([secret, older], 'msg_1', now, 'x');
    expect(header.split(' ')).toHaveLength(2);
    for (const s of [secret, older]) {
      expect(
        verifySignature(s, { id: 'msg_1', timestamp: String(now), signature: header }, 'x', { now }),
      ).toBe(true);
    }
  });

  it('matches the Standard Webhooks reference vector', () => {
    // Published example of the Standard Webhooks specification.
    const sig = signPayload(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});
