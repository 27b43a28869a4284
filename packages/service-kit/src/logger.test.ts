import { MemoryTransport, createLogger } from './logger';
import { redact } from './redact';

describe('logger redaction', () => {
  it('when secrets are logged under secret keys or inside strings, then none reaches the output', () => {
    const mem = new MemoryTransport();
    const log = createLogger({ service: 't', level: 'debug', transports: [mem] });
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJlc2lnbmF0dXJl';
    log.info('login', {
      password: 'hunter2',
      pinCertificado: '1234',
      claveHacienda: 'c2VjcmV0',
      headers: { authorization: `Bearer ${jwt}` },
      note: `token was ${jwt}`,
      nested: { certificadoHacienda: 'MIIK...' },
    });
    log.error('failed', { err: new Error(`bad Bearer ${jwt}`) });
    expect(mem.text).not.toMatch(/hunter2|1234|c2VjcmV0|MIIK|eyJhbGci/);
    expect(mem.text).toContain('[REDACTED]');
    expect(mem.lines).toHaveLength(2);
  });

  it('when a value is not secret, then it is kept', () => {
    expect(redact({ base: 'acme', clave: '506' })).toEqual({ base: 'acme', clave: '506' });
  });
});
