// Run by bench/run.ts as a process of its own: GET /health every 10 ms over one keep-alive connection for the
// given time, then print the latencies as JSON. A monitor is its own process; measured from inside the load
// generator, the figure would include the generator's event loop serving the 64 flooding connections.
import http from 'node:http';

const [url, ms] = [process.argv[2]!, Number(process.argv[3] ?? 5000)];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function once(): Promise<number | undefined> {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.get(`${url}/health`, { agent, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

async function main(): Promise<void> {
  const latencies: number[] = [];
  let failures = 0;
  process.stdout.write('ready\n');
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const latency = await once();
    if (latency === undefined) failures++;
    else latencies.push(latency);
    await new Promise((r) => setTimeout(r, 10));
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.floor(q * (latencies.length - 1))] ?? Number.NaN;
  process.stdout.write(
    `${JSON.stringify({ n: latencies.length, failures, p50: at(0.5), p99: at(0.99), max: at(1) })}\n`,
  );
}

void main();
