import net, { type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { deliverWebhook, generateWebhookSecret, verifySignature, webhookRetryDelayMs } from '../src';

const dev = { allowPrivateTargets: true, allowHttpLoopback: true };

describe('deliverWebhook', () => {
  let server: Server;
  let base: string;
  const received: Array<{ headers: Record<string, string>; body: string }> = [];
  let nextStatus = 200;
  let hang = false;

  beforeAll(async () => {
    const app = express();
    app.post('/hook', express.text({ type: '*/*' }), (req, res) => {
      received.push({ headers: req.headers as Record<string, string>, body: req.body as string });
      if (hang) return;
      res.status(nextStatus).send('ok');
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    received.length = 0;
    nextStatus = 200;
    hang = false;
  });

  const secret = generateWebhookSecret();
  const request = (overrides = {}) => ({
    url: `${base}/hook`,
    id: 'msg_abc',
    timestamp: Math.floor(Date.now() / 1000),
    body: JSON.stringify({ clave: '506', estado: 'aceptado' }),
    secrets: [secret],
    ...overrides,
  });

  it('when the receiver answers 2xx, then the attempt succeeds and the signature verifies', async () => {
    const result = await deliverWebhook(request(), dev);
    expect(result).toMatchObject({ ok: true, status: 200, gone: false });
    const got = received[0]!;
    expect(got.headers['webhook-id']).toBe('msg_abc');
    expect(
      verifySignature(
        secret,
        {
          id: got.headers['webhook-id']!,
          timestamp: got.headers['webhook-timestamp']!,
          signature: got.headers['webhook-signature']!,
        },
        got.body,
      ),
    ).toBe(true);
  });

  it('when the receiver answers 500 or 410, then the attempt fails (410 marks the endpoint gone)', async () => {
    nextStatus = 500;
    expect(await deliverWebhook(request(), dev)).toMatchObject({ ok: false, status: 500, gone: false });
    nextStatus = 410;
    expect(await deliverWebhook(request(), dev)).toMatchObject({ ok: false, status: 410, gone: true });
  });

  it('when the receiver does not answer in time, then the attempt fails with a timeout', async () => {
    hang = true;
    const result = await deliverWebhook(request({ timeoutMs: 200 }), dev);
    expect(result).toMatchObject({ ok: false, error: 'timed out' });
  });

  it('when nothing listens, then the attempt fails with the connection error', async () => {
    // A port from 1024 that was free a moment ago (the well-known ports are refused before connecting).
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const result = await deliverWebhook(request({ url: `http://127.0.0.1:${port}/hook` }), dev);
    expect(result).toMatchObject({ ok: false, error: 'ECONNREFUSED' });
  });

  it('when a stored URL uses a well-known port, then no connection is attempted and the record says why', async () => {
    const result = await deliverWebhook(request({ url: 'http://127.0.0.1:22/hook' }), dev);
    expect(result).toMatchObject({ ok: false, error: 'port 22 is not allowed; use 443 or a port from 1024' });
  });

  it('when private targets are not allowed, then nothing is sent', async () => {
    const result = await deliverWebhook(request(), { allowPrivateTargets: false, allowHttpLoopback: true });
    expect(result.ok).toBe(false);
    expect(received).toHaveLength(0);
  });
});

describe('webhookRetryDelayMs', () => {
  it('follows the schedule with bounded jitter and gives up after eight attempts', () => {
    expect(webhookRetryDelayMs(1, () => 0.5)).toBe(0);
    expect(webhookRetryDelayMs(2, () => 0.5)).toBe(5000);
    expect(webhookRetryDelayMs(3, () => 1)).toBe(330_000);
    expect(webhookRetryDelayMs(8, () => 0)).toBe(32_400_000);
    expect(webhookRetryDelayMs(9)).toBeUndefined();
  });
});
