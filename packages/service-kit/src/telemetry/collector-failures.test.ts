// A scrape-time collector that fails (its database unreachable) must not go unnoticed: its gauges keep
// their last values, so metrics_collector_up says 0 and one log line says when it started and ended.
import { MemoryTransport, createLogger } from '../logger';
import { onScrape, renderMetrics, reportScrapeFailuresTo } from './metrics';

function collectorUp(text: string, collector: string): string | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`metrics_collector_up{collector="${collector}"`));
  return line?.split(' ').pop();
}

describe('scrape-time collectors', () => {
  it('when a collector fails on every scrape, then metrics_collector_up is 0 and one error line says so; when it works again, 1 and one info line', async () => {
    const logs = new MemoryTransport();
    reportScrapeFailuresTo(createLogger({ service: 'kit-test', level: 'info', transports: [logs] }));
    let down = true;
    const stop = onScrape('things', async () => {
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    });
    try {
      for (let i = 0; i < 3; i++) expect(collectorUp((await renderMetrics()).body, 'things')).toBe('0');
      expect(logs.lines.map((l) => JSON.parse(l))).toEqual([
        expect.objectContaining({
          level: 'error',
          collector: 'things',
          err: expect.objectContaining({ message: 'connect ECONNREFUSED 127.0.0.1:5432' }),
        }),
      ]);

      down = false;
      for (let i = 0; i < 2; i++) expect(collectorUp((await renderMetrics()).body, 'things')).toBe('1');
      expect(logs.lines.slice(1).map((l) => JSON.parse(l))).toEqual([
        expect.objectContaining({ level: 'info', collector: 'things' }),
      ]);
    } finally {
      stop();
      reportScrapeFailuresTo(undefined);
    }
    expect(collectorUp((await renderMetrics()).body, 'things')).toBeUndefined();
  });
});
