// A tenant's own SMTP server as an attack on the delivery pool that every tenant's webhooks and e-mails share:
// real sockets to a tiny server in this process that speaks just enough SMTP to misbehave. One that answers
// EHLO with a continuation line now and then (never idle long enough for a reply timeout) is cut off at the
// whole send's deadline (twice MAIL_TIMEOUT_MS); one that streams bytes without a line break is cut off at the
// byte budget; a long reply reaches the log cut as the attempt's row keeps it. Each attempt is recorded and
// left to the e-mail's retry schedule, and the connection is closed by us, not by the server.
import { type Server, type Socket, createServer } from 'node:net';
import { getJob } from '@cr/jobs';
import { MAX_SERVER_BYTES_PER_EMAIL } from '../src/delivery/smtp-connections';
import { post } from './support/client';
import { type TestApp, startTestApp } from './support/test-app';
import { raiseAcceptedMail } from './support/mail-helpers';

jest.setTimeout(60_000);

// Small, so the deadline (twice this) comes within a second; the servers below never go quiet for this long.
const MAIL_TIMEOUT_MS = 400;
// Each fake server stops by itself, long after we should have closed: a continuation line every 200 ms for
// 20 s, or 256 MiB of bytes (far more than the kernel's socket buffers take in before the first read: the
// server writes into them for a while after our last read). Cut off before that, it was closed by us.
const TRICKLE_EVERY_MS = 200;
const TRICKLE_LINES = 100;
const STREAM_BYTES = 256 * 1024 * 1024;

let ctx: TestApp;

beforeAll(async () => {
  ctx = await startTestApp({ mail: { timeoutMs: MAIL_TIMEOUT_MS, retryDelaysMs: [60_000] } });
});
afterAll(async () => {
  await ctx.close();
});

interface FakeSmtp {
  port: number;
  /** Bytes the server wrote after the greeting, and continuation lines among them. */
  written: number;
  lines: number;
  /** Resolves when the connection has closed; `byServer` tells whether this server ended it. */
  closed: Promise<{ byServer: boolean }>;
  /** Ends the connection from the server's side (its own bound reached, or QUIT). */
  hangUp(socket: Socket, last?: string): void;
  stop(): Promise<void>;
}

/**
 * A server that greets, reads commands line by line and lets `reply` answer each (for one connection): the
 * misbehaviour under test lives there.
 */
async function fakeSmtp(reply: (command: string, socket: Socket, fake: FakeSmtp) => void): Promise<FakeSmtp> {
  let byServer = false;
  let markClosed: (value: { byServer: boolean }) => void = () => undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      sockets.delete(socket);
      markClosed({ byServer });
    });
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let at = pending.indexOf('\r\n'); at >= 0; at = pending.indexOf('\r\n')) {
        const command = pending.slice(0, at);
        pending = pending.slice(at + 2);
        reply(command, socket, fake);
      }
    });
    socket.write('220 fake.test ESMTP\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeSmtp = {
    port: (server.address() as { port: number }).port,
    written: 0,
    lines: 0,
    closed: new Promise((resolve) => {
      markClosed = resolve;
    }),
    hangUp(socket, last) {
      byServer = true;
      if (last === undefined) socket.end();
      else socket.end(last);
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return fake;
}

/** Answers EHLO with `250-` lines, one every TRICKLE_EVERY_MS, never the last one; ends after TRICKLE_LINES. */
function trickleEhlo(command: string, socket: Socket, fake: FakeSmtp): void {
  if (!command.startsWith('EHLO')) return;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    if (fake.lines === TRICKLE_LINES) {
      clearInterval(timer);
      fake.hangUp(socket);
      return;
    }
    const line = `250-fake.test still thinking ${fake.lines}\r\n`;
    fake.lines += 1;
    fake.written += line.length;
    socket.write(line);
  }, TRICKLE_EVERY_MS);
}

/** Answers EHLO with bytes and no line break, as fast as the socket takes them; ends after STREAM_BYTES. */
function streamAfterEhlo(command: string, socket: Socket, fake: FakeSmtp): void {
  if (!command.startsWith('EHLO')) return;
  const chunk = Buffer.alloc(16 * 1024, 'x');
  const pump = () => {
    while (!socket.destroyed && fake.written < STREAM_BYTES) {
      fake.written += chunk.length;
      if (!socket.write(chunk)) return socket.once('drain', pump);
    }
    if (!socket.destroyed) fake.hangUp(socket);
  };
  socket.write('250-');
  pump();
}

/** A server that takes EHLO and refuses MAIL FROM with a 451 reply `length` characters long. */
function longRefusal(length: number) {
  // Words, not one long token: the logger redacts a long run of base64-like characters as a blob.
  const reply = `451 ${'4.3.2 mailbox busy, try again later. '.repeat(length / 10)}`.slice(0, length);
  return (command: string, socket: Socket, fake: FakeSmtp) => {
    if (command.startsWith('EHLO')) socket.write('250 fake.test\r\n');
    else if (command.startsWith('MAIL FROM')) socket.write(`${reply}\r\n`);
    else if (command === 'QUIT') fake.hangUp(socket, '221 bye\r\n');
    else socket.write('500 what\r\n');
  };
}

async function configureServer(tenantId: string, port: number): Promise<void> {
  const res = await post(ctx, tenantId, '/api/configurar/correo', {
    host: '127.0.0.1',
    port,
    secure: false,
    // These servers speak plain SMTP only, without credentials: what they do after EHLO is the point here.
    requiereTls: false,
    remitente: `facturas@${tenantId}.cr`,
  });
  expect(res.status).toBe(200);
}

async function firstAttempt(tenantId: string, clave: string) {
  const data = (await post(ctx, tenantId, '/api/consultar/documento', { clave })).body.data;
  expect(data.correo.envios).toHaveLength(1);
  return data.correo.envios[0];
}

describe("a tenant's SMTP server that holds the delivery slot", () => {
  it('when it answers EHLO with a continuation line every 200 ms for ever, then we close the connection at the deadline (2 × MAIL_TIMEOUT_MS) and the attempt is recorded as timed out, to be retried', async () => {
    const fake = await fakeSmtp(trickleEhlo);
    try {
      await configureServer('acme', fake.port);
      const { clave, key } = await raiseAcceptedMail(ctx, 'acme');

      // Closed by us while the server was still sending lines: no reply timeout could have ended it.
      expect(await fake.closed).toEqual({ byServer: false });
      expect(fake.lines).toBeGreaterThan(0);
      expect(fake.lines).toBeLessThan(TRICKLE_LINES);
      const envio = await firstAttempt('acme', clave);
      expect(envio).toMatchObject({
        estado: 'pendiente',
        intentos: [
          {
            intento: 1,
            ok: false,
            codigo: null,
            respuesta: `ETIMEDOUT: the SMTP conversation did not end within ${(2 * MAIL_TIMEOUT_MS) / 1000} s (2 × MAIL_TIMEOUT_MS); the connection was closed`,
          },
        ],
      });
      // A timeout like nodemailer's own: retried on the e-mail's schedule, not given up.
      expect(await getJob(ctx.db, { key })).toMatchObject({
        state: 'pending',
        lastError: expect.stringMatching(/^ETIMEDOUT: /),
      });
    } finally {
      await fake.stop();
    }
  });

  it('when it streams bytes without a line break after the greeting, then we close the connection past the byte budget, the attempt fails with that reason and the process still answers', async () => {
    const fake = await fakeSmtp(streamAfterEhlo);
    try {
      await configureServer('acme', fake.port);
      const { clave, key } = await raiseAcceptedMail(ctx, 'acme');

      expect(await fake.closed).toEqual({ byServer: false });
      expect(fake.written).toBeGreaterThan(MAX_SERVER_BYTES_PER_EMAIL);
      expect(fake.written).toBeLessThan(STREAM_BYTES);
      const envio = await firstAttempt('acme', clave);
      expect(envio).toMatchObject({
        estado: 'pendiente',
        intentos: [
          {
            ok: false,
            codigo: null,
            respuesta: `EPROTOCOL: the server sent more than ${MAX_SERVER_BYTES_PER_EMAIL} bytes for one e-mail; the connection was closed`,
          },
        ],
      });
      expect((await getJob(ctx.db, { key }))?.state).toBe('pending');
      // The event loop was not held by an ever-growing reply: the API and the worker still answer.
      expect((await post(ctx, 'acme', '/api/consultar/correo', {})).status).toBe(200);
      expect(await ctx.worker.runOnce()).toBe(0);
    } finally {
      await fake.stop();
    }
  });
});

describe("a tenant's SMTP server's reply in the log", () => {
  it('when it refuses with a 5,000-character reply, then the log line carries the first 1,000 characters, as the attempt does', async () => {
    const fake = await fakeSmtp(longRefusal(5_000));
    try {
      await configureServer('acme', fake.port);
      const { clave, messageId } = await raiseAcceptedMail(ctx, 'acme');

      const envio = await firstAttempt('acme', clave);
      expect(envio.intentos[0]).toMatchObject({ ok: false, codigo: 451 });
      expect(envio.intentos[0].respuesta).toHaveLength(1_000);
      const logged = ctx.log.lines
        .map((line) => JSON.parse(line) as { message: string; envioId?: string; reply?: string })
        .filter((entry) => entry.envioId === messageId);
      expect(logged.map((entry) => entry.message)).toEqual(['e-mail not sent; will retry']);
      expect(logged[0]!.reply).toBe(envio.intentos[0].respuesta);
    } finally {
      await fake.stop();
    }
  });
});
