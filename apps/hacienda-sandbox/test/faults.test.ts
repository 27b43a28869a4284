import request from 'supertest';
import { type Harness, startHarness } from './sandbox-harness';

describe('fault injection', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('when 2 faults are injected on the public API, then the next 2 calls fail with the status and the third succeeds', async () => {
    await request(h.app)
      .post('/sandbox/fallas')
      .send({ target: 'public-api', mode: 'status', count: 2, status: 502 })
      .expect(201);
    await request(h.app).get('/fe/cabys?codigo=2132100000100').expect(502);
    await request(h.app).get('/fe/cabys?codigo=2132100000100').expect(502);
    await request(h.app).get('/fe/cabys?codigo=2132100000100').expect(200);
  });

  it('when faults are injected on the IdP and recepción, then those calls answer 503', async () => {
    await request(h.app)
      .post('/sandbox/fallas')
      .send({ target: 'idp', mode: 'status', count: 1 })
      .expect(201);
    await request(h.app)
      .post('/sandbox/fallas')
      .send({ target: 'recepcion-get', mode: 'status', count: 1 })
      .expect(201);
    await request(h.app)
      .post('/sandbox/fallas')
      .send({ target: 'recepcion-post', mode: 'status', count: 1 })
      .expect(201);
    const token = '/auth/realms/rut-stag/protocol/openid-connect/token';
    const form = { grant_type: 'password', client_id: 'api-stag', username: 'u', password: 'p' };
    await request(h.app).post(token).type('form').send(form).expect(503);
    await request(h.app)
      .get(`/recepcion/v1/recepcion/${'1'.repeat(50)}`)
      .expect(503);
    await request(h.app).post('/recepcion/v1/recepcion').send({}).expect(503);
    await request(h.app).post(token).type('form').send(form).expect(200);
    await request(h.app)
      .get(`/recepcion/v1/recepcion/${'1'.repeat(50)}`)
      .expect(401);
  });

  it('when a timeout is injected, then the call gets no answer before the client gives up', async () => {
    await request(h.app)
      .post('/sandbox/fallas')
      .send({ target: 'public-api', mode: 'timeout', count: 1, timeoutMs: 800 })
      .expect(201);
    await expect(request(h.app).get('/fe/cabys?codigo=2132100000100').timeout(300)).rejects.toThrow(
      /Timeout/,
    );
    await request(h.app).get('/fe/cabys?codigo=2132100000100').expect(200);
  });

  it('when the fault request is malformed, then 400 naming the field', async () => {
    const res = await request(h.app)
      .post('/sandbox/fallas')
      .send({ target: 'everything', mode: 'status', count: 1 });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('target');
  });
});
