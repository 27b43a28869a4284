// Attack: the metrics port carries counts that cross tenants. It bound every interface by default while the
// public listener binds loopback (docs/security.md item 12), so `node dist/main.js` on a shared network
// served /metrics to anyone reaching the machine, and the start line said `127.0.0.1` whatever was bound.
// Refused: METRICS_HOST defaults to 127.0.0.1 (the images set 0.0.0.0), and the line names the real address.
import { reachable, whoReaches } from '@cr/testkit';
import { Type } from '@sinclair/typebox';
import { loadConfig } from '../src/config';
import { MemoryTransport, createLogger } from '../src/logger';
import { startTelemetry, telemetrySettingsProperties } from '../src/telemetry';

const settingsOf = (env: Record<string, string>) =>
  loadConfig(Type.Object(telemetrySettingsProperties(9400)), { METRICS_PORT: '0', ...env });

async function startMetrics(env: Record<string, string>) {
  const logs = new MemoryTransport();
  const logger = createLogger({ service: 'kit-test', level: 'info', transports: [logs] });
  const telemetry = await startTelemetry({ service: 'kit-test', settings: settingsOf(env), logger });
  const port = Number(new URL(telemetry.metricsUrl!).port);
  return { logs, port, stop: telemetry.stop };
}

describe('the metrics listener binds loopback unless asked', () => {
  it('when METRICS_HOST is not set, then only 127.0.0.1 accepts connections and the start line says so', async () => {
    const { logs, port, stop } = await startMetrics({});
    try {
      expect(settingsOf({}).METRICS_HOST).toBe('127.0.0.1');
      expect(await whoReaches(port)).toEqual({ loopback: true, otherLoopback: false, network: false });
      expect(logs.text).toContain(`metrics listening on 127.0.0.1:${port}`);
    } finally {
      await stop();
    }
  });

  it('when METRICS_HOST is 0.0.0.0 (the images), then the start line names 0.0.0.0, not loopback', async () => {
    const { logs, port, stop } = await startMetrics({ METRICS_HOST: '0.0.0.0' });
    try {
      expect(await reachable('127.0.0.2', port)).toBe(true);
      expect(logs.text).toContain(`metrics listening on 0.0.0.0:${port}`);
      expect(logs.text).not.toContain('127.0.0.1');
    } finally {
      await stop();
    }
  });
});
