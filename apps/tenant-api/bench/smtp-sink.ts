// The benches' SMTP server: it takes every message and counts it, as the webhook receiver counts webhooks.
// `pnpm start` gives the tenant-api a mail catcher, so every accepted document with a receptor's e-mail is
// also rendered and sent; the benches must pay for that too. The mail catcher itself parses each message
// (mailparser), which would spend the bench process's CPU on the cores the services are measured on; this
// one only answers the SMTP dialogue (RFC 5321) and finds where each message ends.
import { type Socket, createServer } from 'node:net';

const END_OF_DATA = '\r\n.\r\n';

export interface SmtpSink {
  /** SMTP_URL for the tenant-api. */
  url: string;
  /** Messages accepted so far. */
  count(): number;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setEncoding('latin1');
    let inData = false;
    let pending = '';
    socket.write('220 bench ESMTP\r\n');
    socket.on('data', (chunk: string) => {
      let buffer = pending + chunk;
      pending = '';
      while (buffer.length > 0) {
        if (inData) {
          const end = buffer.indexOf(END_OF_DATA);
          if (end < 0) {
            // The terminator may straddle two chunks: keep what could be its beginning.
            pending = buffer.slice(-(END_OF_DATA.length - 1));
            return;
          }
          buffer = buffer.slice(end + END_OF_DATA.length);
          inData = false;
          count += 1;
          socket.write('250 OK\r\n');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) {
          pending = buffer;
          return;
        }
        const verb = buffer.slice(0, 4).toUpperCase();
        buffer = buffer.slice(newline + 2);
        if (verb === 'EHLO') socket.write('250-bench\r\n250 8BITMIME\r\n');
        else if (verb === 'DATA') {
          inData = true;
          // What follows DATA is the message; the terminator is searched from its own first line break.
          buffer = `\r\n${buffer}`;
          socket.write('354 End data with <CR><LF>.<CR><LF>\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 Bye\r\n');
          return;
        } else socket.write('250 OK\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    count: () => count,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
