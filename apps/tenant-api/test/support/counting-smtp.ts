// A real SMTP server in this process (smtp-server, the library mail servers in Node are built on) that counts
// what it is given: connections, AUTH and MAIL FROM commands, and the messages with their session. By default
// it offers no STARTTLS and takes AUTH in clear, as a server without TLS does, or as any server looks once an
// attacker on the path has struck STARTTLS from its EHLO reply; `options` change that.
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface CountingSmtp {
  port: number;
  /** Connections the server has accepted, and the ones that have ended. */
  opened: number;
  closed: number;
  /** AUTH and MAIL FROM commands the server took. */
  logins: number;
  mailFrom: number;
  received: Array<{ session: string; user: string | undefined; secure: boolean }>;
  server: SMTPServer;
  stop(): Promise<void>;
}

export async function startCountingSmtp(options: Partial<SMTPServerOptions> = {}): Promise<CountingSmtp> {
  const state = { opened: 0, closed: 0, logins: 0, mailFrom: 0, received: [] } as unknown as CountingSmtp;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    closeTimeout: 100,
    onConnect(_session, cb) {
      state.opened += 1;
      cb();
    },
    onClose() {
      state.closed += 1;
    },
    onAuth(auth, _session, cb) {
      state.logins += 1;
      cb(null, { user: auth.username });
    },
    onMailFrom(_address, _session, cb) {
      state.mailFrom += 1;
      cb();
    },
    onData(stream, session, cb) {
      stream.resume();
      stream.on('end', () => {
        state.received.push({
          session: session.id,
          user: session.user as string | undefined,
          secure: session.secure,
        });
        cb();
      });
    },
    ...options,
  });
  // A client that refuses the certificate ends the TLS handshake: the server reports it, nothing to do here.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.server.address() as { port: number }).port;
  state.server = server;
  state.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
