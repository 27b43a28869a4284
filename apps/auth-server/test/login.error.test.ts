import request from 'supertest';
import { OWASP_ARGON2 } from '../src/passwords';
import { type Harness, admin, startHarness } from './helpers';

const LAX = { freeFailures: 1000, baseDelayMs: 1000, maxDelayMs: 1000 };

describe('POST /login (refusals)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      // Generous allowances: this file is about bodies, not throttling.
      throttle: { perBaseIp: LAX, perBase: LAX },
    });
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'acme', password: 'correct-horse-1' })
      .expect(201);
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'sleepy', password: 'correct-horse-2' })
      .expect(201);
    await request(h.app).patch('/admin/clients/sleepy').set(admin()).send({ disabled: true }).expect(200);
  });
  afterAll(() => h.close());

  it.each([
    ['base missing', { password: 'x' }, 'base: is required'],
    ['password missing', { base: 'acme' }, 'password: is required'],
    ['base empty', { base: '', password: 'x' }, 'base:'],
    ['password empty', { base: 'acme', password: '' }, 'password:'],
    ['base a number', { base: 5, password: 'x' }, 'base: must be of type string'],
    ['password an object', { base: 'acme', password: { $ne: null } }, 'password: must be of type string'],
    ['password null', { base: 'acme', password: null }, 'password: must be of type string'],
    ['body an array', [], '(body): must be of type object'],
  ])('when %s, then 400 bad_request naming the field', async (_name, body, message) => {
    const res = await request(h.app)
      .post('/login')
      .send(body as object)
      .expect(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.message).toContain(message);
  });

  it('when the body is not JSON, then 400 bad_request', async () => {
    const res = await request(h.app)
      .post('/login')
      .set('content-type', 'application/json')
      .send('{"base": "acme",');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: 'request body is not valid JSON' });
  });

  it('when the body is not sent as JSON, then 400 bad_request', async () => {
    const res = await request(h.app)
      .post('/login')
      .set('content-type', 'text/plain')
      .send('base=acme&password=x');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      message: '(body): must be a JSON object, sent with Content-Type: application/json',
    });
  });

  it('when the body is larger than 16 KB, then 413 payload_too_large, as the gateway answers', async () => {
    const res = await request(h.app)
      .post('/login')
      .send({ base: 'acme', password: 'x'.repeat(20_000) });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
    expect(res.body.message).toContain('exceeds the limit');
  });

  it('when the client is unknown, the password wrong or the client disabled, then the 401 bodies are byte-identical', async () => {
    const unknown = await request(h.app).post('/login').send({ base: 'nobody', password: 'correct-horse-1' });
    const wrong = await request(h.app).post('/login').send({ base: 'acme', password: 'wrong-horse-1' });
    const disabled = await request(h.app)
      .post('/login')
      .send({ base: 'sleepy', password: 'correct-horse-2' });
    for (const r of [unknown, wrong, disabled]) {
      expect(r.status).toBe(401);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    }
    expect(wrong.text).toBe(unknown.text);
    expect(disabled.text).toBe(unknown.text);
    expect(JSON.parse(unknown.text)).toEqual({
      error: 'invalid_credentials',
      message: 'base or password is incorrect',
    });
  });

  it('when the client is unknown, then the refusal takes comparable time (a dummy hash is verified)', async () => {
    // Production argon2 parameters, so the hash (not database noise) dominates what is measured.
    const owasp = await startHarness({ argon2: OWASP_ARGON2, throttle: { perBaseIp: LAX, perBase: LAX } });
    try {
      await request(owasp.app)
        .post('/admin/clients')
        .set(admin())
        .send({ base: 'acme', password: 'correct-horse-1' })
        .expect(201);
      const time = async (base: string) => {
        const started = process.hrtime.bigint();
        await request(owasp.app).post('/login').send({ base, password: 'wrong-horse-1' }).expect(401);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      await time('nobody');
      await time('acme');
      const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const unknown: number[] = [];
      const known: number[] = [];
      for (let i = 0; i < 7; i++) {
        unknown.push(await time(`nobody${i}`));
        known.push(await time('acme'));
      }
      // Both paths run exactly one argon2id verification; without the dummy hash an unknown client would
      // answer many times faster (no hash at all).
      const ratio = median(unknown) / median(known);
      expect(ratio).toBeGreaterThan(0.5);
      expect(ratio).toBeLessThan(2);
    } finally {
      await owasp.close();
    }
  });

  const malformed: Array<[string, string]> = [
    ['empty', ''],
    ['null', 'null'],
    ['number', '42'],
    ['string', '"acme"'],
    ['true', 'true'],
    ['nested arrays', '[[[[[]]]]]'],
    ['deep object', `${'{"a":'.repeat(500)}1${'}'.repeat(500)}`],
    ['prototype pollution', '{"__proto__":{"admin":true},"base":"acme","password":"x"}'],
    ['constructor key', '{"constructor":{"prototype":{}},"base":"acme","password":"x"}'],
    ['base huge', `{"base":"${'a'.repeat(10_000)}","password":"x"}`],
    ['unicode base', '{"base":"ácmé\\u0000","password":"x"}'],
    ['nul in password', '{"base":"acme","password":"\\u0000"}'],
    ['lone surrogate', '{"base":"acme","password":"\\ud800"}'],
    ['duplicate keys', '{"base":"acme","base":"other","password":"x"}'],
    ['trailing comma', '{"base":"acme","password":"x",}'],
    ['single quotes', "{'base':'acme'}"],
    ['NaN', '{"base":NaN,"password":"x"}'],
    ['bad escape', '{"base":"\\x41","password":"x"}'],
    ['float password', '{"base":"acme","password":1.5e308}'],
    ['array password', '{"base":"acme","password":["x"]}'],
    ['truncated', '{"base":"ac'],
    ['bom', '\ufeff{"base":"acme","password":"x"}'],
  ];

  it.each(malformed)('when the body is %s, then never a 5xx', async (_name, raw) => {
    const res = await request(h.app).post('/login').set('content-type', 'application/json').send(raw);
    expect(res.status).toBeLessThan(500);
    expect([400, 401]).toContain(res.status);
    expect(typeof res.body.error).toBe('string');
  });
});
