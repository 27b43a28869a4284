// verifyWebhook against deliveries signed by the platform's own signer (@cr/webhooks, what the tenant-api
// uses), including a secret rotation where both secrets sign, and both kinds of event the URL receives.
import { RecepcionDeadlineEvent as DeadlineSchema, validate } from '@cr/contracts';
import { generateWebhookSecret, signatureHeader } from '@cr/webhooks';
import {
  type RecepcionDeadlineEvent,
  type WebhookEvent,
  WebhookVerificationError,
  verifyWebhook,
} from '../src';

const NOW = 1_790_000_000;
const body = JSON.stringify({
  folioId: '5'.repeat(50),
  folioType: 'INVOICE',
  folioDetails: [{ fileType: 'XML', encodedFile: 'PE1lbnNhamVIYWNpZW5kYS8+' }],
  clave: '5'.repeat(50),
  estado: 'aceptado',
});

// As the tenant-api's daily scan raises it (apps/tenant-api/src/recepcion/deadline-job.ts).
const deadline: RecepcionDeadlineEvent = {
  type: 'recepcion.deadline',
  clave: '6'.repeat(50),
  receptor: '3101123456',
  emisor: { tipo: '02', numero: '3101779527', nombre: 'Pixdea SA' },
  total: '11300.00000',
  vence: '2026-12-11',
  diasHabilesRestantes: 2,
};

function delivery(secrets: string[], timestamp = NOW, id = 'msg_2x1', signed = body) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, signed),
  };
}

/** What a receiver shows of an event, by its kind: the narrowing an SDK user writes. */
function summary(event: WebhookEvent): string {
  if ('type' in event)
    return `${event.type} ${event.clave} vence ${event.vence} (${event.diasHabilesRestantes})`;
  return `${event.estado} ${event.clave} ${event.folioType}`;
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

  it('when one of the secrets is unusable (empty, not base64), then the others are still tried', async () => {
    const signed = delivery([current]);
    for (const secrets of [
      [previous, '', current],
      ['whsec_not base64!', current],
      [` ${previous}`, current],
    ])
      await expect(verifyWebhook(body, signed, secrets, { now: NOW })).resolves.toMatchObject({
        estado: 'aceptado',
      });
  });

  it('when no secret is usable, then it is refused as invalid_secret', async () => {
    for (const secrets of [[''], ['', 'whsec_*'], 'whsec_']) {
      const err = await verifyWebhook(body, delivery([current]), secrets, { now: NOW }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WebhookVerificationError);
      expect(err).toMatchObject({ error: 'invalid_secret' });
    }
  });

  it('when a recepcion.deadline event is delivered, then it verifies as the deadline kind of WebhookEvent', async () => {
    expect(validate(DeadlineSchema, deadline)).toMatchObject({ ok: true });
    const signed = JSON.stringify(deadline);
    const event = await verifyWebhook(signed, delivery([current], NOW, 'msg_d1', signed), current, {
      now: NOW,
    });
    expect(summary(event)).toBe(`recepcion.deadline ${'6'.repeat(50)} vence 2026-12-11 (2)`);
    const document = await verifyWebhook(body, delivery([current]), current, { now: NOW });
    expect(summary(document)).toBe(`aceptado ${'5'.repeat(50)} INVOICE`);
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
