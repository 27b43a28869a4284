import request from 'supertest';
import { type Harness, startHarness } from './sandbox-harness';

const TOKEN = '/auth/realms/rut-stag/protocol/openid-connect/token';
const USER = 'cpf-01-0987-0456@stag.comprobanteselectronicos.go.cr';

describe('IdP refusals', () => {
  let h: Harness;
  let clock = new Date('2026-11-21T12:00:00Z');
  beforeAll(async () => {
    h = await startHarness({
      env: { SANDBOX_OPEN_MODE: 'false', SANDBOX_ADMIN_TOKEN: 'admin-token-0123456789' },
      now: () => clock,
    });
    await request(h.app)
      .post('/sandbox/usuarios')
      .set('Authorization', 'Bearer admin-token-0123456789')
      .send({ username: USER, password: 'right' });
  });
  afterAll(() => h.close());

  it('when the password is wrong, then 401 invalid_grant "Invalid user credentials"', async () => {
    const res = await request(h.app)
      .post(TOKEN)
      .type('form')
      .send({ grant_type: 'password', client_id: 'api-stag', username: USER, password: 'wrong' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
  });

  it('when the user is unknown and open mode is off, then 401 invalid_grant', async () => {
    const res = await request(h.app)
      .post(TOKEN)
      .type('form')
      .send({ grant_type: 'password', client_id: 'api-stag', username: 'nobody', password: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('when the client_id belongs to the other realm, then 401 invalid_client as Keycloak answers', async () => {
    const res = await request(h.app)
      .post(TOKEN)
      .type('form')
      .send({ grant_type: 'password', client_id: 'api-prod', username: USER, password: 'right' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('when grant_type is missing or unknown, then 400 invalid_request / unsupported_grant_type', async () => {
    const missing = await request(h.app).post(TOKEN).type('form').send({ client_id: 'api-stag' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    const unknown = await request(h.app)
      .post(TOKEN)
      .type('form')
      .send({ client_id: 'api-stag', grant_type: 'client_credentials' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('unsupported_grant_type');
  });

  it('when the access token has expired, then recepción answers 401', async () => {
    const res = await request(h.app)
      .post(TOKEN)
      .type('form')
      .send({ grant_type: 'password', client_id: 'api-stag', username: USER, password: 'right' });
    const auth = `bearer ${res.body.access_token}`;
    expect(
      (
        await request(h.app)
          .get(`/recepcion/v1/recepcion/${'5'.repeat(50)}`)
          .set('Authorization', auth)
      ).status,
    ).toBe(404);
    clock = new Date(clock.getTime() + 301_000);
    expect(
      (
        await request(h.app)
          .get(`/recepcion/v1/recepcion/${'5'.repeat(50)}`)
          .set('Authorization', auth)
      ).status,
    ).toBe(401);
  });

  it('when the token is missing or forged, then recepción answers 401', async () => {
    expect((await request(h.app).post('/recepcion/v1/recepcion').send({})).status).toBe(401);
    const forged = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"typ":"Bearer","exp":9999999999}').toString('base64url')}.`;
    expect(
      (await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', `bearer ${forged}`).send({}))
        .status,
    ).toBe(401);
  });

  it('when the admin token is missing, then the admin API answers 401', async () => {
    const res = await request(h.app).post('/sandbox/usuarios').send({ username: 'a', password: 'b' });
    expect(res.status).toBe(401);
  });
});
