// Attack: an anonymous client reads /health to learn the database's error text (host names, roles, paths).
// Refused: the public answers say only ok/failing; the reasons need HEALTH_TOKEN at /health/details.
import request from 'supertest';
import { MemoryTransport, createHttpApp, createLogger } from '../src';

const RAW = 'connect ECONNREFUSED 10.3.4.5:5432 (role "tenant_owner", /var/run/postgresql)';
const TOKEN = 'health-token-0123456789abcdef';

function app(healthToken?: string) {
  return createHttpApp({
    logger: createLogger({ service: 't', level: 'error', transports: [new MemoryTransport()] }),
    readiness: {
      database: () => {
        throw new Error(RAW);
      },
      keys: () => undefined,
    },
    ...(healthToken ? { healthToken } : {}),
    routes() {},
  });
}

describe('health answers never leak raw errors', () => {
  it.each(['/health', '/health/ready'])(
    'when %s is read anonymously, then it names the failing check only',
    async (path) => {
      const r = await request(app(TOKEN)).get(path).expect(503);
      expect(r.body).toEqual({ status: 'unavailable', checks: { database: 'failing', keys: 'ok' } });
      expect(r.text).not.toContain('ECONNREFUSED');
      expect(r.text).not.toContain('10.3.4.5');
    },
  );

  it('when /health/details is read without or with a wrong token, then 401 and nothing of the reason', async () => {
    const none = await request(app(TOKEN)).get('/health/details').expect(401);
    expect(none.text).not.toContain('ECONNREFUSED');
    expect(none.headers['www-authenticate']).toBe('Bearer');
    const wrong = await request(app(TOKEN))
      .get('/health/details')
      .set('authorization', 'Bearer nope-nope-nope');
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('ECONNREFUSED');
  });

  it('when /health/details is read with HEALTH_TOKEN, then the reasons are there', async () => {
    const r = await request(app(TOKEN))
      .get('/health/details')
      .set('authorization', `Bearer ${TOKEN}`)
      .expect(503);
    expect(r.body.checks).toEqual({ database: RAW, keys: 'ok' });
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('when no HEALTH_TOKEN is configured, then /health/details does not exist', async () => {
    const r = await request(app()).get('/health/details').set('authorization', `Bearer ${TOKEN}`).expect(404);
    expect(r.body.error).toBe('not_found');
  });
});
