// SMTP connections kept open between e-mails to the same server, as an MTA's client keeps them (Postfix's
// smtp_connection_cache_time_limit, 2 s by default). A connection costs a TCP handshake, the greeting, EHLO,
// usually STARTTLS's TLS handshake and AUTH: several round trips to the tenant's server, and on loopback
// 6.2 → 2.6 ms of our CPU per e-mail (plain) or 7.5 → 2.3 ms (STARTTLS + AUTH) when kept ("## tenant-api
// (e-mail)" in docs/performance.md). Each server gets a nodemailer pool,
// keyed by everything the connection depends on: the tenant (a tenant's connection is never used for another
// tenant's mail; the platform's SMTP_URL is the operator's and shared), the address connected to (checked at
// this attempt), the TLS name, the port, TLS and the credentials. A changed setting or DNS answer is another
// key: the old pool is closed when idle. A pool closes `idleMs` after its last e-mail, so nothing stays open
// for a tenant that stopped sending. ADR 0049.
import { createHash } from 'node:crypto';
import { type Socket, connect } from 'node:net';
import nodemailer from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import type { SmtpServer } from './smtp-server';

export interface SmtpConnectionSettings {
  /** MAIL_CONNECTION_IDLE_MS: how long a server's connections stay open after its last e-mail; 0: one per e-mail. */
  idleMs: number;
  /** Connections one server may have open at once (the mail pool's concurrency: no e-mail waits for another). */
  maxConnections: number;
  /** MAIL_TIMEOUT_MS: connecting and the greeting (together), then each reply. */
  timeoutMs: number;
}

/** What nodemailer hands over: the envelope and the message already composed. */
export interface ComposedMail {
  envelope: { from: string | false; to: string[] };
  raw: Buffer;
}

interface Entry {
  transport: nodemailer.Transporter<SMTPPool.SentMessageInfo>;
  sending: number;
  idle?: NodeJS.Timeout;
}

// A connection is closed after this many e-mails and a new one opened (nodemailer's default), so one long-lived
// conversation does not collect a server's per-session limits.
const MESSAGES_PER_CONNECTION = 100;

export class SmtpConnections {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(private readonly settings: SmtpConnectionSettings) {}

  /**
   * Hands `tenantId`'s `mail` to `server` over an open connection to it, or a new one. A tenant's own server's
   * connections carry only that tenant's mail; the platform's (SMTP_URL, the operator's server and credentials)
   * are shared by every tenant it sends for. Rejects as nodemailer does (the SMTP reply's code and text on the
   * error).
   */
  async send(tenantId: string, server: SmtpServer, mail: ComposedMail): Promise<SMTPPool.SentMessageInfo> {
    if (this.closed) throw new Error('the SMTP connections are closed (shutting down)');
    const key = keyOf(server.origin === 'plataforma' ? 'plataforma' : `tenant:${tenantId}`, server);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { transport: this.transportFor(server), sending: 0 };
      this.entries.set(key, entry);
    }
    clearTimeout(entry.idle);
    entry.sending += 1;
    try {
      return await entry.transport.sendMail(mail);
    } finally {
      entry.sending -= 1;
      if (entry.sending === 0) this.closeWhenIdle(key, entry);
    }
  }

  /** Servers with a pool open now (tests). */
  get open(): number {
    return this.entries.size;
  }

  /** Closes every connection (shutdown, after the worker stopped); later sends are refused. */
  close(): void {
    this.closed = true;
    for (const [key, entry] of this.entries) this.drop(key, entry);
  }

  private closeWhenIdle(key: string, entry: Entry): void {
    if (this.settings.idleMs === 0) {
      this.drop(key, entry);
      return;
    }
    entry.idle = setTimeout(() => this.drop(key, entry), this.settings.idleMs);
    entry.idle.unref();
  }

  private drop(key: string, entry: Entry): void {
    clearTimeout(entry.idle);
    if (this.entries.get(key) === entry) this.entries.delete(key);
    entry.transport.close();
  }

  private transportFor(server: SmtpServer): Entry['transport'] {
    const { timeoutMs, maxConnections, idleMs } = this.settings;
    const options: SMTPPool.Options & { maxRequeues: number } = {
      pool: true,
      // Called by the pool for each new connection; nodemailer attaches its handlers before any I/O event.
      getSocket: (_options, callback) => callback(null, connectWithoutDelay(server)),
      maxConnections,
      maxMessages: idleMs === 0 ? 1 : MESSAGES_PER_CONNECTION,
      // A connection the server dropped while an e-mail was on it fails that attempt, which is recorded and
      // retried on the e-mail's schedule: nodemailer's own requeue (not in its types) would resend it unseen,
      // and without a bound.
      maxRequeues: 0,
      host: server.connectTo,
      port: server.port,
      secure: server.secure,
      ...(server.auth ? { auth: server.auth } : {}),
      // The certificate is checked against the name the tenant gave, not the address connected to.
      tls: { servername: server.host },
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      // Attachments are buffers built here; nothing in a message may make nodemailer read a file or a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    };
    return nodemailer.createTransport(options);
  }
}

/**
 * The TCP connection to the server with Nagle's algorithm off, handed to nodemailer while it connects: from
 * there nodemailer treats it as its own (its handlers see a refused or failed connection; the greeting's
 * timeout covers connecting; for `secure` it starts TLS on it with the same options). SMTP is a conversation
 * of small commands and replies: with Nagle on, a message's last small write could wait for the server's
 * delayed ACK (~40 ms on Linux) on a kept connection: in the e-mail bench, plain SMTP over kept connections
 * sent 87 e-mails/s (4 at once) with it on, 636 with it off.
 */
function connectWithoutDelay(server: SmtpServer): { connection: Socket } {
  return { connection: connect({ host: server.connectTo, port: server.port, noDelay: true }) };
}

/** The pool's key: a digest, so no password sits in a map key (or in a heap dump's strings) twice. */
function keyOf(scope: string, server: SmtpServer): string {
  const parts = [
    scope,
    server.connectTo,
    server.host,
    server.port,
    server.secure,
    server.auth?.user ?? null,
    server.auth?.pass ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}
