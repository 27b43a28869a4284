import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CallbackPoster } from './callback-poster';

interface Receiver {
  url: string;
  server: Server;
  bodies: { contentType: string | undefined; body: string }[];
  connections: Socket[];
}

async function startReceiver(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const bodies: Receiver['bodies'] = [];
  const connections: Socket[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      bodies.push({ contentType: req.headers['content-type'], body });
      answer(req, res);
    });
  });
  server.on('connection', (socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, server, bodies, connections };
}

const receivers: Receiver[] = [];
let poster: CallbackPoster | undefined;

afterEach(async () => {
  poster?.close();
  poster = undefined;
  for (const r of receivers.splice(0)) {
    r.server.closeAllConnections();
    await new Promise<void>((resolve) => r.server.close(() => resolve()));
  }
});

async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

describe('CallbackPoster', () => {
  it('when callbacks follow each other to one receiver, then each is POSTed as JSON over one kept connection and resolves with its status', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end('ok'));
    poster = new CallbackPoster(2_000);
    const statuses = [];
    for (let n = 0; n < 3; n++) statuses.push(await poster.post(r.url, JSON.stringify({ n })));
    expect(statuses).toEqual([200, 200, 200]);
    expect(r.bodies).toEqual([0, 1, 2].map((n) => ({ contentType: 'application/json', body: `{"n":${n}}` })));
    expect(r.connections).toHaveLength(1);
  });

  it('when the receiver answers with a redirect or an error status, then that status is the result and nothing is followed', async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end());
    const r = await receiver((_req, res) => res.writeHead(302, { location: target.url }).end());
    poster = new CallbackPoster(2_000);
    expect(await poster.post(r.url, '{}')).toBe(302);
    expect(target.bodies).toHaveLength(0);
    const failing = await receiver((_req, res) => res.writeHead(503).end('busy'));
    expect(await poster.post(failing.url, '{}')).toBe(503);
  });

  it('when the receiver does not answer within the timeout, then the post rejects saying so', async () => {
    const r = await receiver(() => undefined);
    poster = new CallbackPoster(150);
    const started = Date.now();
    await expect(poster.post(r.url, '{}')).rejects.toThrow('no answer within 150 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('when nothing listens or the URL is not http(s), then the post rejects', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end());
    const closedUrl = r.url;
    r.server.closeAllConnections();
    await new Promise<void>((resolve) => r.server.close(() => resolve()));
    receivers.splice(receivers.indexOf(r), 1);
    poster = new CallbackPoster(2_000);
    await expect(poster.post(closedUrl, '{}')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(poster.post('ftp://127.0.0.1/hook', '{}')).rejects.toThrow(/not http\(s\)/);
  });

  it('when a kept connection has been idle for the kept-idle time, then we close it, before a receiver would', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end());
    poster = new CallbackPoster(2_000, 150);
    await poster.post(r.url, '{}');
    const socket = r.connections[0] as Socket;
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(await poster.post(r.url, '{}')).toBe(200);
    expect(r.connections).toHaveLength(2);
  });

  it('when closed, then the kept connections end', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end());
    poster = new CallbackPoster(2_000);
    await poster.post(r.url, '{}');
    const socket = r.connections[0] as Socket;
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    poster.close();
    await ended;
    expect(socket.destroyed).toBe(true);
  });
});
