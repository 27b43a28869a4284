// A steady load: request i is due at start + i / rate whatever the answers before it (an open loop, as
// clients arriving on their own), over at most `connections` kept-alive connections, and its latency counts
// from when it was due, so a request that waited for a free connection, or for a timer the busy event loop
// fired late, is late by that much (no coordinated omission).
//
// autocannon's rate limit measures something else: each connection sends its quota for the second back to
// back when the second starts, then waits for the next one, so "half the full rate" is half of every second
// at full concurrency and half idle; and it corrects for coordinated omission with an expected interval of
// `Math.ceil(1 / rate)` ms, 1 ms at any rate of one request a second or more, adding a sample for every
// millisecond of every answer. Its full-rate runs (no rate) have neither.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface PacedLoadOptions {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Each request's body (POST). */
  body?: () => string;
  /** Requests per second, spread evenly. */
  rate: number;
  seconds: number;
  connections: number;
  onResponse?: (status: number) => void;
}

export interface PacedLoadResult {
  /** Requests sent, and answered with a 2xx. */
  sent: number;
  ok: number;
  /** Non-2xx answers and transport errors. */
  failed: number;
  /** 2xx answers per second of the run (its end: the last answer). */
  rps: number;
  /** Latency from each request's due time to the end of its answer, ms. */
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const total = Math.max(1, Math.round(options.rate * options.seconds));
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let sent = 0;
  const start = performance.now();
  let lastEnd = start;

  const send = (due: number): Promise<void> =>
    new Promise((resolve) => {
      const done = (status: number | undefined) => {
        const end = performance.now();
        lastEnd = Math.max(lastEnd, end);
        latencies.push(end - due);
        if (status !== undefined && status >= 200 && status < 300) ok += 1;
        else failed += 1;
        if (status !== undefined) options.onResponse?.(status);
        resolve();
      };
      const req = request(options.url, { method: options.method, headers: options.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode));
        res.on('error', () => done(undefined));
      });
      req.on('error', () => done(undefined));
      req.end(options.body?.());
    });

  const inFlight: Promise<void>[] = [];
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + sent * interval <= now) {
        inFlight.push(send(start + sent * interval));
        sent += 1;
      }
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    sent,
    ok,
    failed,
    rps: ok / ((lastEnd - start) / 1000),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies.at(-1) ?? Number.NaN,
  };
}
