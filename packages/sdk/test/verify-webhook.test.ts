// verifyWebhook against deliveries signed by the platform's own signer (@cr/webhooks, what the tenant-api
// uses), including a secret rotation where both secrets sign.
import { generateWebhookSecret, signatureHeader } from '@cr/webhooks';
import { WebhookVerificationError, verifyWebhook } from '../src';

const NOW = 1_790_000_000;
const body = JSON.stringify({
  folioId: '5'.repeat(50),
  folioType: 'INVOICE',
  folioDetails: [{ fileType: 'XML', encodedFile: 'PE1lbnNhamVIYWNpZW5kYS8+' }],
  clave: '5'.repeat(50),
  estado: 'aceptado',
});

function delivery(secrets: string[], timestamp = NOW, id = 'msg_2x1') {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, body),
  };
}

describe('verifyWebhook', () => {
  const current = generateWebhookSecret();
  const previous = generateWebhookSecret();

  it('when the delivery is signed with the secret, then it returns the event', async () => {
    const event = await verifyWebhook(body, delivery([current]), current, { now: NOW });
    expect(event).toMatchObject({ estado: 'aceptado', folioType: 'INVOICE' });
  });

  it('when the body arrives as bytes and headers as a Headers object, then it verifies', async () => {
    const event = await verifyWebhook(
      new TextEncoder().encode(body),
      new Headers(delivery([current])),
      current,
      {
        now: NOW,
      },
    );
    expect(event.clave).toBe('5'.repeat(50));
  });

  it('when the service signs with both secrets during a rotation, then either secret verifies', async () => {
    const headers = delivery([current, previous]);
    await expect(verifyWebhook(body, headers, previous, { now: NOW })).resolves.toBeDefined();
    await expect(verifyWebhook(body, headers, current, { now: NOW })).resolves.toBeDefined();
  });

  it('when the receiver holds two secrets, then a delivery signed by either verifies', async () => {
    await expect(
      verifyWebhook(body, delivery([previous]), [current, previous], { now: NOW }),
    ).resolves.toBeDefined();
  });

  it('when the body was changed, then it is refused', async () => {
    const headers = delivery([current]);
    await expect(
      verifyWebhook(body.replace('aceptado', 'rechazado'), headers, current, { now: NOW }),
    ).rejects.toThrow('no webhook-signature matches');
  });

  it('when another secret signed it, then it is refused', async () => {
    await expect(verifyWebhook(body, delivery([previous]), current, { now: NOW })).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
  });

  it('when the timestamp is outside the tolerance, then it is refused even with a good signature', async () => {
    const old = delivery([current], NOW - 301);
    await expect(verifyWebhook(body, old, current, { now: NOW })).rejects.toThrow('more than 300 s');
    await expect(
      verifyWebhook(body, old, current, { now: NOW, toleranceSeconds: 600 }),
    ).resolves.toBeDefined();
    await expect(verifyWebhook(body, delivery([current], NOW + 400), current, { now: NOW })).rejects.toThrow(
      'more than 300 s',
    );
  });

  it('when a header is missing or the id was changed, then it is refused', async () => {
    const { 'webhook-id': _id, ...noId } = delivery([current]);
    await expect(verifyWebhook(body, noId, current, { now: NOW })).rejects.toThrow('missing webhook-id');
    const swapped = { ...delivery([current]), 'webhook-id': 'msg_other' };
    await expect(verifyWebhook(body, swapped, current, { now: NOW })).rejects.toThrow('no webhook-signature');
  });

  it('when the signature is not v1, then it is refused', async () => {
    const h = delivery([current]);
    const v2 = { ...h, 'webhook-signature': h['webhook-signature'].replace('v1,', 'v2,') };
    await expect(verifyWebhook(body, v2, current, { now: NOW })).rejects.toThrow('no webhook-signature');
  });
});
