// Sends e-mails through SmtpConnections from a process of its own, so that a test can start it with
// NODE_EXTRA_CA_CERTS (Node reads it once, at start; jest's process cannot trust another CA for one test):
// the whole TLS conversation, certificate check included, as the service has it. Prints `sent N` or
// `failed: <message>`.
import type { SmtpServer } from '../../src/delivery/smtp-server';
import { SmtpConnections } from '../../src/delivery/smtp-connections';

interface Order {
  server: SmtpServer;
  count: number;
}

async function main(): Promise<void> {
  const { server, count } = JSON.parse(process.env.SEND_MAIL_ORDER ?? '') as Order;
  const connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 1, timeoutMs: 5_000 });
  try {
    for (let n = 1; n <= count; n += 1) {
      await connections.send('acme', server, {
        envelope: { from: server.from, to: ['cuentas@cliente.cr'] },
        raw: Buffer.from(
          `From: ${server.from}\r\nTo: cuentas@cliente.cr\r\nSubject: ${n}\r\n\r\nFactura ${n}\r\n`,
        ),
      });
    }
    process.stdout.write(`sent ${count}\n`);
  } catch (err) {
    process.stdout.write(`failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    connections.close();
  }
}

void main();
