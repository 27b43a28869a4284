// Attack: behind one gateway that appends to X-Forwarded-For, a client sends its own X-Forwarded-For with a
// fresh made-up address on every request, so every per-address limit sees a new client. With express's
// `trust proxy = true` the left-most (client-written) entry became req.ip. TRUST_PROXY=true now means one
// hop: req.ip is the address the gateway saw, whatever the client wrote.
import request from 'supertest';
import { ConfigError, MemoryTransport, createHttpApp, createLogger, parseTrustProxy } from '../src';

function app(trustProxy: ReturnType<typeof parseTrustProxy>) {
  return createHttpApp({
    logger: createLogger({ service: 't', level: 'error', transports: [new MemoryTransport()] }),
    trustProxy,
    routes(a) {
      a.get('/ip', (req, res) => {
        res.json({ ip: req.ip, host: req.host });
      });
    },
  });
}

describe('TRUST_PROXY is a hop count', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['true', 1],
    [true, 1],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8, 127.0.0.1'],
    ['loopback', 'loopback'],
  ] as const)('when TRUST_PROXY is %p, then express gets %p', (raw, expected) => {
    expect(parseTrustProxy(raw)).toEqual(expected);
  });

  it.each(['yes please', 'true; drop', '999'])(
    'when TRUST_PROXY is %p, then the setting is refused',
    (raw) => {
      expect(() => parseTrustProxy(raw)).toThrow(ConfigError);
    },
  );

  it('when a client forges X-Forwarded-For through one gateway, then req.ip is the gateway-seen address', async () => {
    const a = app(parseTrustProxy('true'));
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const r = await request(a)
        .get('/ip')
        .set('x-forwarded-for', `198.51.100.${i}, 203.0.113.7`)
        .expect(200);
      seen.add(r.body.ip);
    }
    expect([...seen]).toEqual(['203.0.113.7']);
  });

  it('when TRUST_PROXY is off, then X-Forwarded-For is ignored altogether', async () => {
    const r = await request(app(parseTrustProxy(undefined)))
      .get('/ip')
      .set('x-forwarded-for', '198.51.100.1')
      .expect(200);
    expect(r.body.ip).not.toBe('198.51.100.1');
  });
});
