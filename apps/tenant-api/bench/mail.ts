// Benchmark: the receptor's e-mail handed to an SMTP server, a connection per e-mail against connections kept
// between e-mails (MAIL_CONNECTION_IDLE_MS, ADR 0049). The product's path (send-mail.ts: MailComposer, then
// SmtpConnections) sends an e-mail the size of a real one (the PDF, the signed XML and Hacienda's answer) to an
// smtp-server in a child process, so this process's CPU is the tenant-api's share and the child's the server's.
// Two servers: plain SMTP on loopback (as `pnpm start`'s mail catcher) and STARTTLS with AUTH (as a provider's
// port 587). Writes its section of docs/performance.md.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import {
  describeOtherWork,
  describeSigningPath,
  loadAverages,
  rawSigningRate,
  startOtherWork,
} from '@cr/testkit';
import { SMTPServer } from 'smtp-server';
import { type OutgoingMail, sendMail } from '../src/delivery/send-mail';
import { SmtpConnections } from '../src/delivery/smtp-connections';
import type { SmtpServer } from '../src/delivery/smtp-server';
import { writePerformanceSection } from './support';

const N = Number(process.env.BENCH_MAIL_COUNT ?? 400);
const WARM = 50;
// As many at once as the tenant-api's mail pool sends (WEBHOOK_CONCURRENCY's default).
const AT_ONCE = 4;

interface ServerReport {
  connections: number;
  messages: number;
  cpuMs: number;
}

type ToServer = { report: true };
type FromServer = { plain: number; tls: number } | ServerReport;

/** The child: two smtp-servers (smtp-server's own self-signed certificate for STARTTLS) that count what comes. */
async function serve(): Promise<void> {
  const report: ServerReport = { connections: 0, messages: 0, cpuMs: 0 };
  const make = (tls: boolean) =>
    new SMTPServer({
      ...(tls ? {} : { disabledCommands: ['STARTTLS', 'AUTH'] }),
      authOptional: !tls,
      // The reverse DNS lookup smtp-server makes of each client would put the resolver's time in the rows.
      disableReverseLookup: true,
      onConnect(_session, cb) {
        report.connections += 1;
        cb();
      },
      onAuth(auth, _session, cb) {
        cb(null, { user: auth.username });
      },
      onData(stream, _session, cb) {
        stream.resume();
        stream.on('end', () => {
          report.messages += 1;
          cb();
        });
      },
    });
  const listen = (server: SMTPServer) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port)),
    );
  const ports = { plain: await listen(make(false)), tls: await listen(make(true)) };
  process.on('message', (_message: ToServer) => {
    const cpu = process.cpuUsage();
    process.send?.({ ...report, cpuMs: (cpu.user + cpu.system) / 1000 } satisfies ServerReport);
  });
  process.send?.(ports);
}

interface Row {
  server: string;
  idleMs: number;
  perSecond: number;
  clientMs: number;
  serverMs: number;
  connections: number;
}

async function main(): Promise<void> {
  const child = fork(__filename, ['serve'], { execArgv: process.execArgv, stdio: 'inherit' });
  const next = () =>
    new Promise<FromServer>((resolve) => child.once('message', (m) => resolve(m as FromServer)));
  const ports = (await next()) as { plain: number; tls: number };
  const report = async () => {
    const answer = next();
    child.send({ report: true } satisfies ToServer);
    return (await answer) as ServerReport;
  };
  // smtp-server's certificate is its own self-signed one: the chain is not checked in this bench (the
  // handshake's key exchange and signatures, which are its cost, still happen).
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const servers: Array<[string, SmtpServer]> = [
    [
      'plain SMTP, no AUTH',
      {
        host: 'localhost',
        connectTo: '127.0.0.1',
        port: ports.plain,
        secure: false,
        requireTls: false,
        from: 'a@acme.cr',
        origin: 'tenant',
      },
    ],
    [
      'STARTTLS + AUTH PLAIN',
      {
        host: 'localhost',
        connectTo: '127.0.0.1',
        port: ports.tls,
        secure: false,
        requireTls: true,
        auth: { user: 'facturas@acme.cr', pass: 'bench-password' },
        from: 'a@acme.cr',
        origin: 'tenant',
      },
    ],
  ];
  // The sizes of the 5-line invoice's attachments (docs/performance.md "## pdf" and "## xsd").
  const mail: OutgoingMail = {
    to: ['cuentas@cliente.cr'],
    subject: 'Factura electrónica 00100001010000000001 de EMPRESA DE PRUEBA',
    text: 'Adjuntamos la factura electrónica, su XML firmado y la respuesta de Hacienda.\n',
    attachments: [
      { filename: 'doc.xml', content: randomBytes(11_507), contentType: 'application/xml' },
      { filename: 'doc_respuesta.xml', content: randomBytes(3_000), contentType: 'application/xml' },
      { filename: 'doc.pdf', content: randomBytes(29_072), contentType: 'application/pdf' },
    ],
  };
  const loadStart = loadAverages();
  const other = startOtherWork();
  const rsa = rawSigningRate();
  const rows: Row[] = [];
  for (const [name, server] of servers) {
    for (const idleMs of [0, 2_000]) {
      const connections = new SmtpConnections({ idleMs, maxConnections: AT_ONCE, timeoutMs: 10_000 });
      const run = async (count: number) => {
        let sent = 0;
        const lane = async () => {
          while (sent < count) {
            sent += 1;
            const outcome = await sendMail(connections, 'acme', server, mail);
            if (!outcome.ok) throw new Error(`${name}: ${outcome.reply}`);
          }
        };
        await Promise.all(Array.from({ length: AT_ONCE }, lane));
      };
      await run(WARM);
      const before = await report();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await run(N);
      const wallMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const after = await report();
      connections.close();
      rows.push({
        server: name,
        idleMs,
        perSecond: (N * 1000) / wallMs,
        clientMs: (cpu.user + cpu.system) / 1000 / N,
        serverMs: (after.cpuMs - before.cpuMs) / N,
        connections: after.connections - before.connections,
      });
    }
  }
  child.kill();
  const table = [
    '| server | MAIL_CONNECTION_IDLE_MS | e-mails per second | tenant-api CPU ms per e-mail | SMTP server CPU ms per e-mail | connections opened (after the warm-up) | of raw RSA rate |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.server} | ${r.idleMs === 0 ? '0 (a connection per e-mail)' : r.idleMs.toLocaleString('en-US')} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${r.clientMs.toFixed(2)} | ${r.serverMs.toFixed(2)} | ${r.connections.toLocaleString('en-US')} | ${((100 * r.perSecond) / rsa).toFixed(1)}% |`,
    ),
  ].join('\n');
  const section = `## tenant-api (e-mail)

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}; load average at the start ${loadStart}, at the end ${loadAverages()}; ${describeOtherWork(other())}. Command: \`pnpm --filter @cr/tenant-api exec tsx bench/mail.ts\` (part of \`pnpm bench\`). The receptor's e-mail through the product's path (send-mail.ts: composed, then handed over by \`SmtpConnections\`) to an smtp-server in a child process on loopback: ${N.toLocaleString('en-US')} e-mails per row, ${AT_ONCE} at once (the mail pool's concurrency), after ${WARM} for warm-up; each carries attachments of the 5-line invoice's sizes (PDF 29 KB, signed XML 11.5 KB, answer 3 KB). CPU from \`process.cpuUsage\` of each process. STARTTLS uses smtp-server's self-signed certificate (the chain is not checked; the handshake is made). Raw RSA-2048 signing in the same run: ${Math.round(rsa).toLocaleString('en-US')}/s on one thread (${describeSigningPath()}).

${table}

ADR 0049: a tenant's e-mails to one server share its connections while they follow each other; \`0\` sends as before it, a connection (TCP, greeting, EHLO, STARTTLS, AUTH) per e-mail. smtp-server, as many servers do, waits 100 ms before its greeting to catch clients that talk first: a connection per e-mail pays it each time, which bounds those rows near 36 e-mails/s with 4 at once.
`;
  writePerformanceSection('## tenant-api (e-mail)', section);
}

if (process.argv[2] === 'serve') void serve();
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
