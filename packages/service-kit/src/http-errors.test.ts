// What a client sees when the request cannot even reach a route's code: through the real express stack.
import request from 'supertest';
import { createHttpApp } from './http';
import { MemoryTransport, createLogger } from './logger';

const app = createHttpApp({
  logger: createLogger({ service: 'kit-test', level: 'info', transports: [new MemoryTransport()] }),
  routes(a) {
    a.get('/things/:id', (req, res) => {
      res.json({ id: req.params.id });
    });
    a.post('/things', (req, res) => {
      res.json({ got: req.body });
    });
  },
});

describe('requests refused before their route', () => {
  it('when a path parameter is not valid percent-encoding, then 400 naming the path, without the raw value', async () => {
    const res = await request(app).get('/things/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      message: 'path: a parameter is not valid percent-encoding',
    });
  });

  it.each([
    ['a JSON string', '"x"', 'request body must be a JSON object'],
    ['a JSON number', '42', 'request body must be a JSON object'],
    ['broken JSON', '{"a": ', 'request body is not valid JSON'],
  ])('when the body is %s, then 400 saying what the body must be', async (_n, body, message) => {
    const res = await request(app).post('/things').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message });
  });

  it('when the path and body are fine, then the route answers', async () => {
    await request(app).get('/things/caf%C3%A9').expect(200, { id: 'café' });
    await request(app)
      .post('/things')
      .send({ a: 1 })
      .expect(200, { got: { a: 1 } });
  });
});
