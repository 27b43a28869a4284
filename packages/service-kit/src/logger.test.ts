import { MemoryTransport, createLogger } from './logger';
import { redact, redactString } from './redact';

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

  it('when a path carries a token-like segment, then it is masked; claves and UUIDs stay readable', () => {
    const token = 'q3Zr8_x-Lm2nB7vK9pQwE4tY1uI0oA5sD6fG8hJ2kL3';
    const mem = new MemoryTransport();
    const log = createLogger({ service: 't', level: 'debug', transports: [mem] });
    log.http('request', { method: 'POST', path: `/hacienda/callback/${token}` });
    expect(mem.text).not.toContain(token);
    expect(mem.text).toContain('/hacienda/callback/[REDACTED]');
    expect(redactString(`/hacienda/callback/${token}`)).toBe('/hacienda/callback/[REDACTED]');
    expect(redactString(`/x/${token}/y?z=1`)).toBe('/x/[REDACTED]/y?z=1');
    const clave = '50626052600310295087500100001010000000033159073080';
    expect(redactString(`/api/descargar/${clave}/pdf`)).toBe(`/api/descargar/${clave}/pdf`);
    const uuid = '0b9f3c2e-8d4a-4e71-9c55-2f0d6a1b7e33';
    expect(redactString(`/api/envios/${uuid}`)).toBe(`/api/envios/${uuid}`);
  });

  it('when secrets are written as JSON text, form fields, Basic auth, our API keys or URL credentials, then they are masked', () => {
    const cases: Array<[string, string]> = [
      ['{"password":"hunter2","base":"acme"}', 'hunter2'],
      ['grant_type=password&username=u&password=hunter3&client_secret=s3cr3t', 's3cr3t'],
      ['grant_type=password&username=u&password=hunter3', 'hunter3'],
      ['Authorization: Basic dXNlcjpodW50ZXI0', 'dXNlcjpodW50ZXI0'],
      ['login with crk_Hk3v9QwLx2Tb7mPa_9f8e7d6c5b4a3f2e1d0c', '9f8e7d6c5b4a3f2e1d0c'],
      ['connecting to smtp://mailer:hunter5@smtp.example.com:587', 'hunter5'],
      ['https://user:hunter6@otel.example.com/v1/traces', 'hunter6'],
      ["x-api-key: 'abc123secret'", 'abc123secret'],
    ];
    for (const [text, secret] of cases)
      expect([text, redact(text)]).not.toEqual([text, expect.stringContaining(secret)]);
    expect(redact({ 'x-api-key': 'k', 'api-key': 'k2' })).toEqual({
      'x-api-key': '[REDACTED]',
      'api-key': '[REDACTED]',
    });
    // What is around them stays readable.
    expect(redact('{"password":"hunter2","base":"acme"}')).toContain('"base":"acme"');
    expect(redact('connecting to smtp://mailer:hunter5@smtp.example.com:587')).toBe(
      'connecting to smtp://[REDACTED]@smtp.example.com:587',
    );
  });

  it('when a value is not secret, then it is kept', () => {
    expect(redact({ base: 'acme', clave: '506' })).toEqual({ base: 'acme', clave: '506' });
  });
});

describe('logger levels', () => {
  it('when a line is below the level, then it is dropped before any format reads it; at the level it is written', () => {
    const mem = new MemoryTransport();
    const log = createLogger({ service: 't', level: 'info', transports: [mem] });
    let reads = 0;
    const payload = Object.defineProperty({}, 'clave', {
      enumerable: true,
      get: () => {
        reads += 1;
        return '506';
      },
    });
    log.http('request', { payload });
    log.debug('detail', { payload });
    log.child({ requestId: 'req_1' }).http('request', { payload });
    expect({ reads, lines: mem.lines.length }).toEqual({ reads: 0, lines: 0 });
    log.info('kept', { payload });
    expect(reads).toBeGreaterThan(0);
    expect(mem.lines).toHaveLength(1);
    expect(JSON.parse(mem.lines[0] ?? '{}')).toMatchObject({ message: 'kept', payload: { clave: '506' } });
    // The level can be lowered at run time, and a child follows it.
    log.level = 'http';
    log.child({ requestId: 'req_2' }).http('request', { path: '/x' });
    expect(JSON.parse(mem.lines[1] ?? '{}')).toMatchObject({ level: 'http', requestId: 'req_2', path: '/x' });
  });
});

describe('redaction of hostile text', () => {
  // Each of these made a pattern restart inside a run it had already scanned: seconds to minutes of the
  // event loop for a 2 MB value a supplier's XML can carry into an error message. Linear now, so the test
  // simply finishes; the old patterns did not within jest's timeout.
  it.each([
    ['a JWT-looking run', `<x xmlns="${'eyJ'.repeat(700_000)}"/>`],
    ['a URL-scheme-looking run', `${'a.'.repeat(1_000_000)}`],
    ['PEM headers without ends', '-----BEGIN A----- '.repeat(120_000)],
  ])('when a log value is %s of 2 MB, then it is masked in one pass', (_name, value) => {
    expect(typeof redactString(value)).toBe('string');
  });

  it('when a PEM block has its end, then only the block is masked; without its end, the rest of the text is', () => {
    const key = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
    expect(redactString(`before ${key} after`)).toBe('before [REDACTED_PEM] after');
    expect(redactString(`a ${key} b ${key} c`)).toBe('a [REDACTED_PEM] b [REDACTED_PEM] c');
    expect(redactString('cut: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq')).toBe('cut: [REDACTED_PEM]');
  });

  it('when a JWT or URL credentials follow other text, then they are still masked', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJl';
    expect(redactString(`token=${jwt}`)).toBe('token=[REDACTED]');
    expect(redactString(`got ${jwt} here`)).toBe('got [REDACTED_JWT] here');
    expect(redactString('via smtp://user:pw@mail.example.cr:587')).toBe(
      'via smtp://[REDACTED]@mail.example.cr:587',
    );
  });

  it('when an error with a cause is logged, then the line keeps the cause, masked like the rest', () => {
    const mem = new MemoryTransport();
    const log = createLogger({ service: 't', level: 'debug', transports: [mem] });
    const refused = new Error('connect ECONNREFUSED 10.0.0.5:4000 for smtp://user:pw@mail.example.cr');
    log.error('request failed', { err: new Error('the auth-server did not answer', { cause: refused }) });
    expect(JSON.parse(mem.lines[0]!).err.cause).toMatchObject({
      name: 'Error',
      message: 'connect ECONNREFUSED 10.0.0.5:4000 for smtp://[REDACTED]@mail.example.cr',
    });
  });
});
