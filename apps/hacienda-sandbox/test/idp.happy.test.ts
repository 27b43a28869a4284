import request from 'supertest';
import { type Harness, startHarness } from './sandbox-harness';

const TOKEN = '/auth/realms/rut-stag/protocol/openid-connect/token';
const LOGOUT = '/auth/realms/rut-stag/protocol/openid-connect/logout';
const ADMIN = 'Bearer admin-token-0123456789';
const USER = 'cpj-3-101-261506@stag.comprobanteselectronicos.go.cr';

describe('IdP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { SANDBOX_OPEN_MODE: 'false', SANDBOX_ADMIN_TOKEN: 'admin-token-0123456789' },
    });
    await request(h.app)
      .post('/sandbox/usuarios')
      .set('Authorization', ADMIN)
      .send({ username: USER, password: 'p@ss w=rd&20chars!!' });
  });
  afterAll(() => h.close());

  const grant = (extra: Record<string, string> = {}) =>
    request(h.app)
      .post(TOKEN)
      .type('form')
      .send({
        grant_type: 'password',
        client_id: 'api-stag',
        username: USER,
        password: 'p@ss w=rd&20chars!!',
        client_secret: '',
        scope: '',
        ...extra,
      });

  it('when the password grant is right, then it answers Keycloak’s token JSON with a 300 s access token', async () => {
    const res = await grant();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      expires_in: 300,
      refresh_expires_in: 1800,
      token_type: 'bearer',
      'not-before-policy': 0,
      scope: 'profile email',
    });
    expect(typeof res.body.access_token).toBe('string');
    expect(typeof res.body.refresh_token).toBe('string');
    expect(typeof res.body.session_state).toBe('string');
    const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ azp: 'api-stag', preferred_username: USER, typ: 'Bearer' });
    expect(claims.exp - claims.iat).toBe(300);
  });

  it('when refreshing, then a new access token comes back; after logout (204) the refresh is refused', async () => {
    const first = await grant();
    const refreshed = await request(h.app)
      .post(TOKEN)
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: 'api-stag', refresh_token: first.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(first.body.access_token);
    expect(refreshed.body.session_state).toBe(first.body.session_state);

    const out = await request(h.app)
      .post(LOGOUT)
      .type('form')
      .send({ client_id: 'api-stag', refresh_token: first.body.refresh_token });
    expect(out.status).toBe(204);

    const again = await request(h.app)
      .post(TOKEN)
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: 'api-stag', refresh_token: first.body.refresh_token });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    const status = await request(h.app)
      .get(`/recepcion/v1/recepcion/${'5'.repeat(50)}`)
      .set('Authorization', `bearer ${refreshed.body.access_token}`);
    expect(status.status).toBe(401);
  });

  it('when the production realm is used with api-prod, then it issues tokens there too', async () => {
    await request(h.app)
      .post('/sandbox/usuarios')
      .set('Authorization', ADMIN)
      .send({ username: 'cpf-01-1234-5678@comprobanteselectronicos.go.cr', password: 'x', realm: 'rut' });
    const res = await request(h.app)
      .post('/auth/realms/rut/protocol/openid-connect/token')
      .type('form')
      .send({
        grant_type: 'password',
        client_id: 'api-prod',
        username: 'cpf-01-1234-5678@comprobanteselectronicos.go.cr',
        password: 'x',
      });
    expect(res.status).toBe(200);
  });
});

describe('IdP in open mode', () => {
  it('when an unknown user logs in, then the user is created with that password and a wrong one is refused later', async () => {
    const h = await startHarness();
    try {
      const form = {
        grant_type: 'password',
        client_id: 'api-stag',
        username: 'nuevo@stag.comprobanteselectronicos.go.cr',
      };
      await request(h.app)
        .post(TOKEN)
        .type('form')
        .send({ ...form, password: 'primera' })
        .expect(200);
      await request(h.app)
        .post(TOKEN)
        .type('form')
        .send({ ...form, password: 'primera' })
        .expect(200);
      await request(h.app)
        .post(TOKEN)
        .type('form')
        .send({ ...form, password: 'otra' })
        .expect(401);
    } finally {
      await h.close();
    }
  });
});
