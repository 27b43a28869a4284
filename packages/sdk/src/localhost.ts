// `@cr-einvoice/sdk/localhost`, for development in Node: a fetch that sends `*.localhost` requests to the
// loopback address with the original Host header, as browsers and curl do (RFC 6761), because Node's own
// resolver does not resolve `acme.localhost` and its fetch will not send a Host header of our choosing.
// The tenant API tells tenants apart by host, so this is what reaches `http://acme.localhost:4001`. Other
// hosts go to the regular fetch. Node-only, hence a separate entry point: the SDK itself needs only fetch.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { FetchLike } from './transport';

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

function bodyOf(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('localhostFetch sends string or byte bodies only');
}

export function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

export function localhostFetch(fallback: FetchLike = (i, init) => globalThis.fetch(i, init)): FetchLike {
  return (input, init = {}) => {
    const url = new URL(input);
    if (!url.hostname.endsWith('.localhost')) return fallback(input, init);
    const body = bodyOf(init.body);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(
        {
          host: '127.0.0.1',
          port: url.port || (url.protocol === 'https:' ? 443 : 80),
          path: `${url.pathname}${url.search}`,
          method: init.method ?? 'GET',
          headers: { ...headerRecord(init.headers), host: url.host },
          servername: url.hostname,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers)) {
              if (v === undefined) continue;
              for (const value of Array.isArray(v) ? v : [v]) headers.append(k, value);
            }
            const status = res.statusCode ?? 500;
            const noBody = status === 204 || status === 304 || (init.method ?? 'GET') === 'HEAD';
            resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      req.on('error', (err) => reject(new TypeError('fetch failed', { cause: err })));
      if (body !== undefined) req.write(body);
      req.end();
    });
  };
}
