// One delivery attempt: POST the JSON body with Standard Webhooks headers through a connection whose DNS
// lookup enforces the target policy. Success is any 2xx within the timeout; the result is a record for the
// attempts log, never an exception.
import http from 'node:http';
import https from 'node:https';
import { signatureHeader } from './signature';
import { type TargetPolicy, TargetRefusedError, checkTargetUrl, guardedLookup } from './target-policy';

export interface DeliveryRequest {
  url: string;
  /** Stable across retries of one event. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  body: string;
  /** Active secrets, newest first. */
  secrets: string[];
  timeoutMs?: number;
  userAgent?: string;
}

export interface DeliveryResult {
  ok: boolean;
  /** HTTP status, when the receiver answered. */
  status?: number;
  latencyMs: number;
  /** Why the attempt failed (timeout, connection refused, refused target, non-2xx). */
  error?: string;
  /** The receiver asked us to stop (410 Gone). */
  gone: boolean;
}

const RESPONSE_LIMIT = 4096;

export function deliverWebhook(request: DeliveryRequest, policy: TargetPolicy): Promise<DeliveryResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
  let url: URL;
  try {
    url = checkTargetUrl(request.url, policy);
  } catch (err) {
    return Promise.resolve({ ok: false, latencyMs: 0, error: (err as Error).message, gone: false });
  }
  const client = url.protocol === 'https:' ? https : http;
  const body = Buffer.from(request.body, 'utf8');
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<DeliveryResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, latencyMs: elapsed() });
    };
    const req = client.request(
      url,
      {
        method: 'POST',
        lookup: guardedLookup(policy),
        timeout: request.timeoutMs ?? 15_000,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'user-agent': request.userAgent ?? 'cr-einvoice-webhooks/1',
          'webhook-id': request.id,
          'webhook-timestamp': String(request.timestamp),
          'webhook-signature': signatureHeader(request.secrets, request.id, request.timestamp, request.body),
        },
      },
      (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > RESPONSE_LIMIT) res.destroy();
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          finish({
            ok,
            status,
            gone: status === 410,
            ...(ok ? {} : { error: `receiver answered ${status}` }),
          });
        };
        res.on('end', done);
        res.on('close', done);
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error('timed out')), request.timeoutMs ?? 15_000);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err) => {
      clearTimeout(deadline);
      const message =
        err instanceof TargetRefusedError
          ? err.message
          : ((err as NodeJS.ErrnoException).code ?? err.message);
      finish({ ok: false, error: message === 'ETIMEDOUT' ? 'timed out' : message, gone: false });
    });
    req.on('close', () => clearTimeout(deadline));
    req.end(body);
  });
}
