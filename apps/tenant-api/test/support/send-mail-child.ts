// Sends e-mails through SmtpConnections from a process of its own, so that a test can start it with
// NODE_EXTRA_CA_CERTS (Node reads it once, at start; jest's process cannot trust another CA for one test):
// the whole TLS conversation, certificate check included, as the service has it. The order (SEND_MAIL_ORDER)
// is the server and the e-mails, as the test composed them, each `raw` as text. Prints `sent N` or
// `failed: <message>`.
import { type ComposedMail, SmtpConnections } from '../../src/delivery/smtp-connections';
import type { SmtpServer } from '../../src/delivery/smtp-server';

export interface SendMailOrder {
  server: SmtpServer;
  mails: Array<Omit<ComposedMail, 'raw'> & { raw: string }>;
}

async function main(): Promise<void> {
  const { server, mails } = JSON.parse(process.env.SEND_MAIL_ORDER ?? '') as SendMailOrder;
  const connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 1, timeoutMs: 5_000 });
  try {
    for (const mail of mails) await connections.send('acme', server, { ...mail, raw: Buffer.from(mail.raw) });
    process.stdout.write(`sent ${mails.length}\n`);
  } catch (err) {
    process.stdout.write(`failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    connections.close();
  }
}

void main();
