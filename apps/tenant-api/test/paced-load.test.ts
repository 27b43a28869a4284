// The benches' steady load (bench/paced-load.ts) decides the "p99 at half rate" verdicts: its requests must
// arrive spread over the run, not in bursts, and a request held up behind a slow one must count the wait.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pacedLoad } from '../bench/paced-load';

let server: Server;
let url = '';
const arrivals: number[] = [];
let stallFirstMs = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    arrivals.push(performance.now());
    const wait = arrivals.length === 1 ? stallFirstMs : 0;
    req.resume();
    req.on('end', () => setTimeout(() => res.end('{}'), wait));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  arrivals.length = 0;
  stallFirstMs = 0;
});

it('when 100 requests are paced at 200/s, then they arrive spread over the half second, not at once', async () => {
  const r = await pacedLoad({
    url,
    method: 'POST',
    headers: {},
    body: () => '{}',
    rate: 200,
    seconds: 0.5,
    connections: 10,
  });
  expect({ sent: r.sent, ok: r.ok, failed: r.failed }).toEqual({ sent: 100, ok: 100, failed: 0 });
  const first = arrivals[0] ?? 0;
  // Evenly due: 20 in the first 100 ms; a burst would bring all 100.
  expect(arrivals.filter((t) => t - first < 100).length).toBeLessThan(50);
  expect((arrivals.at(-1) ?? 0) - first).toBeGreaterThan(400);
});

it('when one connection is held 300 ms by the first request, then the requests due meanwhile count the wait', async () => {
  stallFirstMs = 300;
  const r = await pacedLoad({
    url,
    method: 'POST',
    headers: {},
    body: () => '{}',
    rate: 100,
    seconds: 0.5,
    connections: 1,
  });
  expect(r.ok).toBe(50);
  // ~30 of the 50 were due while the connection was held: well over 1 % of them waited 100 ms or more. A
  // client timing each request from when it was sent would see one slow answer and 49 fast ones.
  expect(r.p99).toBeGreaterThan(200);
  expect(r.p50).toBeGreaterThan(20);
});
