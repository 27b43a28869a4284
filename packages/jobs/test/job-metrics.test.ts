// The queue gauges read at scrape time, and what a scrape says when the database has gone away: the
// gauges cannot be refreshed, so metrics_collector_up{collector="jobs"} is 0 and one line is logged.
import net from 'node:net';
import {
  type Db,
  MemoryTransport,
  type TestDatabase,
  createLogger,
  openPostgres,
  renderMetrics,
  reportScrapeFailuresTo,
} from '@cr/service-kit';
import { collectJobMetrics, enqueue } from '../src';
import { createClock, createJobsDatabase } from './helpers';

/** A TCP proxy to PostgreSQL that can be cut: every connection through it is dropped, new ones refused. */
async function startCuttableProxy(target: URL): Promise<{ port: number; cut(): Promise<void> }> {
  const port = Number(target.port || 5432);
  const host = target.hostname;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const s of [client, upstream]) sockets.add(s);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A handle on `owner`'s database that can be made unreachable: PostgreSQL through a proxy that is cut;
 * PGlite, which has no network, by closing it.
 */
async function openCuttable(owner: TestDatabase): Promise<{ db: Db; cut(): Promise<void> }> {
  if (!owner.url) return { db: owner, cut: () => owner.close() };
  const url = new URL(owner.url);
  const proxy = await startCuttableProxy(url);
  url.host = `127.0.0.1:${proxy.port}`;
  const db = openPostgres({ connectionString: url.toString() });
  return {
    db,
    async cut() {
      await proxy.cut();
      await db.close().catch(() => undefined);
    },
  };
}

function sample(text: string, series: string): string | undefined {
  return text
    .split('\n')
    .find((l) => l.startsWith(`${series} `))
    ?.split(' ')
    .pop();
}

describe('job metrics', () => {
  it('when the database becomes unreachable, then metrics_collector_up{collector="jobs"} is 0 and one error line says so, however many scrapes', async () => {
    const owner = await createJobsDatabase();
    const { db, cut } = await openCuttable(owner);
    const logs = new MemoryTransport();
    reportScrapeFailuresTo(createLogger({ service: 'jobs', level: 'info', transports: [logs] }));
    const clock = createClock();
    const stop = collectJobMetrics(db, clock.now);
    try {
      await enqueue(db, {
        tenant: 'acme',
        queue: 'submit',
        payload: {},
        runAt: new Date(clock.now().getTime() - 600_000),
      });
      const up = (await renderMetrics()).body;
      expect(sample(up, 'jobs_oldest_due_age_seconds{queue="submit"}')).toBe('600');
      expect(sample(up, 'metrics_collector_up{collector="jobs"}')).toBe('1');
      expect(logs.lines).toEqual([]);

      await cut();
      clock.advance(3_600_000);
      for (let i = 0; i < 3; i++) {
        const down = (await renderMetrics()).body;
        expect(sample(down, 'metrics_collector_up{collector="jobs"}')).toBe('0');
      }

      expect(logs.lines.map((l) => JSON.parse(l))).toEqual([
        expect.objectContaining({
          level: 'error',
          collector: 'jobs',
          err: expect.objectContaining({ message: expect.any(String), stack: expect.any(String) }),
        }),
      ]);
    } finally {
      stop();
      reportScrapeFailuresTo(undefined);
      if (db !== owner) await owner.close();
    }
  });
});
