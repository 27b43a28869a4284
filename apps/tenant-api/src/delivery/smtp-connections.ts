// SMTP connections kept open between e-mails to the same server, as an MTA's client keeps them (Postfix's
// smtp_connection_cache_time_limit, 2 s by default). A connection costs a TCP handshake, the greeting, EHLO,
// usually STARTTLS's TLS handshake and AUTH: several round trips to the tenant's server, and on loopback
// 6.2 → 2.6 ms of our CPU per e-mail (plain) or 7.5 → 2.3 ms (STARTTLS + AUTH) when kept ("## tenant-api
// (e-mail)" in docs/performance.md). Each server has up to `maxConnections` of them ("lanes": each a nodemailer
// pool of one connection, carrying one e-mail at a time), keyed by everything the connection depends on: the
// tenant (a tenant's connection is never used for another tenant's mail; the platform's SMTP_URL is the
// operator's and shared), the address connected to (checked at this attempt), the TLS name, the port, TLS,
// whether STARTTLS is required and the credentials. A changed setting or DNS answer is another key: the old
// one's connections close when idle.
// A server's connections close `idleMs` after its last e-mail, so nothing stays open for a tenant that stopped
// sending. ADR 0049.
//
// A tenant's server is the tenant's to choose, and an e-mail holds a slot of the delivery pool that every
// tenant's webhooks and e-mails share while it talks to it. nodemailer's timeouts are idle timers: a server
// that sends a line now and then, or megabytes without a line break, would hold the slot for ever and make
// nodemailer re-split an ever-growing string. So each send has a deadline for the whole conversation, each
// connection a budget of bytes the server may send per e-mail, and either one closes the connection itself
// (the socket destroyed, not just the promise given up). One e-mail per lane is what lets them close exactly
// that e-mail's connection and no other.
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
  /** MAIL_TIMEOUT_MS: connecting and the greeting (together), then each reply; a whole send gets twice it. */
  timeoutMs: number;
}

/** What nodemailer hands over: the envelope and the message already composed. */
export interface ComposedMail {
  envelope: { from: string | false; to: string[] };
  raw: Buffer;
}

/**
 * Why we closed a connection under an e-mail. `code` is read as nodemailer's own (the attempt records
 * "CODE: message"): ETIMEDOUT, as nodemailer's timeouts, for the deadline; EPROTOCOL for a server past its
 * byte budget.
 */
class SmtpSendAborted extends Error {
  constructor(
    readonly code: 'ETIMEDOUT' | 'EPROTOCOL',
    message: string,
  ) {
    super(message);
    this.name = 'SmtpSendAborted';
  }
}

/**
 * The server answered STARTTLS with a refusal (one that does not offer it, when it is required, answers 502
 * or the like). nodemailer's error carries the reply as `response`, which the attempt would record alone, as
 * if the server had refused the message: this one says what happened, the reply's code kept.
 */
class StartTlsRefused extends Error {
  readonly code = 'ETLS';
  constructor(
    readonly responseCode: number | undefined,
    reply: string,
  ) {
    super(
      `the server did not accept STARTTLS (${reply}); TLS is required before AUTH and the message, so nothing was sent`,
    );
    this.name = 'StartTlsRefused';
  }
}

function explained(err: unknown): unknown {
  const e = err as { code?: string; command?: string; response?: string; responseCode?: number };
  if (e?.code === 'ETLS' && e.command === 'STARTTLS' && typeof e.response === 'string')
    return new StartTlsRefused(e.responseCode, e.response);
  return err;
}

// The deadline of one whole send (connecting, greeting, EHLO, STARTTLS, AUTH, MAIL, RCPT, DATA and the reply
// to the message), in MAIL_TIMEOUT_MS. That setting bounds connecting with the greeting, then each reply; a
// real server answers all but the last at once (one round trip each) and may take long only over the
// message, as it scans it. Two of them leave a full MAIL_TIMEOUT_MS for that reply and another for all the
// rest; a conversation that still has not ended is a server drip-feeding lines to keep the slot. No setting
// of its own: "a reply timed out" keeps its meaning, and the deadline follows it (60 s with the default 30 s).
const DEADLINE_IN_TIMEOUTS = 2;

// What a server may send for one e-mail before its connection is closed. A real dialogue is the greeting,
// EHLO's extensions (a few hundred bytes), the replies to AUTH, MAIL, RCPT (one per recipient), DATA and the
// message, each one line of at most 512 bytes (RFC 5321 4.5.3.1.5), and under TLS the server's certificate
// chain (a few KB) and each record's overhead: well under 16 KiB. 64 KiB is four times that, and small
// enough that nodemailer, which gathers a reply until its line ends, never holds or re-splits much more.
export const MAX_SERVER_BYTES_PER_EMAIL = 64 * 1024;

// After STARTTLS (or from the first byte with `secure`) Node's TLS reads our TCP socket natively: no 'data'
// event shows those bytes, only the socket's bytesRead, which is read this often.
const TLS_BYTES_CHECK_MS = 100;

interface Entry {
  lanes: Lane[];
  /** Sends waiting for a lane (more at once than maxConnections), woken one per lane freed. */
  waiting: Array<() => void>;
  /** Sends on this server now, waiting ones included. */
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
   * error), with StartTlsRefused when the server refused STARTTLS, or with SmtpSendAborted when the deadline
   * or the byte budget closed the connection.
   */
  async send(tenantId: string, server: SmtpServer, mail: ComposedMail): Promise<SMTPPool.SentMessageInfo> {
    if (this.closed) throw closedError();
    const key = keyOf(server.origin === 'plataforma' ? 'plataforma' : `tenant:${tenantId}`, server);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { lanes: [], waiting: [], sending: 0 };
      this.entries.set(key, entry);
    }
    clearTimeout(entry.idle);
    entry.sending += 1;
    try {
      const lane = await this.laneOf(entry, server);
      try {
        return await lane.send(mail, DEADLINE_IN_TIMEOUTS * this.settings.timeoutMs);
      } finally {
        lane.busy = false;
        entry.waiting.shift()?.();
      }
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

  /** A free lane of the server's, a new one while it has fewer than maxConnections, or the next one freed. */
  private async laneOf(entry: Entry, server: SmtpServer): Promise<Lane> {
    for (;;) {
      entry.lanes = entry.lanes.filter((lane) => !lane.retired);
      let lane = entry.lanes.find((l) => !l.busy);
      if (!lane && entry.lanes.length < this.settings.maxConnections) {
        lane = new Lane(server, this.settings);
        entry.lanes.push(lane);
      }
      if (lane) {
        lane.busy = true;
        return lane;
      }
      await new Promise<void>((resolve) => entry.waiting.push(resolve));
      if (this.closed) throw closedError();
    }
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
    for (const lane of entry.lanes) lane.close();
    // Sends waiting for a lane (shutdown only: an idle server has none) wake up to the refusal.
    for (const wake of entry.waiting.splice(0)) wake();
  }
}

const closedError = () => new Error('the SMTP connections are closed (shutting down)');

/**
 * One connection's worth of a server's pool: a nodemailer pool of one connection (which reconnects, logs in
 * and counts the connection's e-mails), carrying one e-mail at a time, so the connection under an e-mail is
 * known, and it alone is closed when that e-mail passes its deadline or the server its byte budget.
 */
class Lane {
  busy = false;
  /** Closed: never used again (its pool closes its connection once idle, or it was destroyed). */
  retired = false;
  private readonly transport: nodemailer.Transporter<SMTPPool.SentMessageInfo>;
  private connection: CountedConnection | undefined;
  /** Fails the e-mail on this lane now, if there is one. */
  private failCurrent: ((err: Error) => void) | undefined;

  constructor(server: SmtpServer, settings: SmtpConnectionSettings) {
    this.transport = nodemailer.createTransport(this.options(server, settings));
  }

  /** Sends `mail`; past `deadlineMs` the connection is destroyed and the send rejects with SmtpSendAborted. */
  send(mail: ComposedMail, deadlineMs: number): Promise<SMTPPool.SentMessageInfo> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        this.failCurrent = undefined;
        finish();
      };
      const deadline = setTimeout(() => {
        const seconds = deadlineMs / 1000;
        this.abort(
          new SmtpSendAborted(
            'ETIMEDOUT',
            `the SMTP conversation did not end within ${seconds} s (${DEADLINE_IN_TIMEOUTS} × MAIL_TIMEOUT_MS); the connection was closed`,
          ),
        );
      }, deadlineMs);
      this.failCurrent = (err) => settle(() => reject(err));
      // A kept connection: this e-mail's budget starts now. A new one starts with a full budget.
      this.connection?.startEmail();
      // After an abort nodemailer still rejects (its connection closed under it): the abort's reason stands.
      this.transport.sendMail(mail).then(
        (info) => settle(() => resolve(info)),
        (err: unknown) => settle(() => reject(explained(err))),
      );
    });
  }

  /** Gracefully: an e-mail on it still ends (within its deadline), then the connection closes. */
  close(): void {
    this.retired = true;
    this.transport.close();
  }

  /** Destroys the connection and fails its e-mail, if any, with `err`; the lane is not used again. */
  private abort(err: SmtpSendAborted): void {
    this.close();
    this.connection?.destroy();
    this.failCurrent?.(err);
  }

  private options(
    server: SmtpServer,
    settings: SmtpConnectionSettings,
  ): SMTPPool.Options & { maxRequeues: number } {
    const { timeoutMs, idleMs } = settings;
    return {
      pool: true,
      // Called by the pool for each new connection; nodemailer attaches its handlers before any I/O event.
      getSocket: (_options, callback) => {
        if (this.retired) return callback(new Error('the SMTP connection was closed'), undefined);
        const connection = new CountedConnection(server, (err) =>
          // One the pool is closing (its e-mails done) carries no e-mail of ours: it alone goes.
          connection === this.connection ? this.abort(err) : connection.destroy(),
        );
        this.connection = connection;
        callback(null, { connection: connection.socket });
      },
      maxConnections: 1,
      maxMessages: idleMs === 0 ? 1 : MESSAGES_PER_CONNECTION,
      // A connection the server dropped while an e-mail was on it fails that attempt, which is recorded and
      // retried on the e-mail's schedule: nodemailer's own requeue (not in its types) would resend it unseen,
      // and without a bound.
      maxRequeues: 0,
      host: server.connectTo,
      port: server.port,
      secure: server.secure,
      // STARTTLS is sent even when the EHLO reply does not offer it (an attacker on the path may have removed
      // it), and without its 220 and a verified handshake no AUTH and no message follow (smtp-server.ts).
      ...(server.requireTls && !server.secure ? { requireTLS: true } : {}),
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
  }
}

/**
 * Our TCP connection to the server, and what the server sent on it counted against the budget of the e-mail
 * on it (MAX_SERVER_BYTES_PER_EMAIL): past it, `onOverflow`. Between e-mails the count goes on, so a server
 * cannot stream to an idle connection either.
 */
class CountedConnection {
  readonly socket: Socket;
  private budgetEnd = MAX_SERVER_BYTES_PER_EMAIL;

  constructor(server: SmtpServer, onOverflow: (err: SmtpSendAborted) => void) {
    this.socket = connectWithoutDelay(server);
    const check = () => {
      if (this.socket.destroyed || this.socket.bytesRead <= this.budgetEnd) return;
      onOverflow(
        new SmtpSendAborted(
          'EPROTOCOL',
          `the server sent more than ${MAX_SERVER_BYTES_PER_EMAIL} bytes for one e-mail; the connection was closed`,
        ),
      );
    };
    // Paused, a 'data' listener does not start the flow: the socket flows when nodemailer, its handlers on,
    // resumes it, so no byte reaches this count and not nodemailer.
    this.socket.pause();
    // Before any TLS, every chunk is counted as it arrives, before nodemailer's handler adds it to its reply.
    this.socket.on('data', check);
    const tls = setInterval(check, TLS_BYTES_CHECK_MS);
    tls.unref();
    this.socket.once('close', () => clearInterval(tls));
  }

  /** A new e-mail starts on this (kept) connection: the server may send a budget's worth more. */
  startEmail(): void {
    this.budgetEnd = this.socket.bytesRead + MAX_SERVER_BYTES_PER_EMAIL;
  }

  destroy(): void {
    this.socket.destroy();
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
function connectWithoutDelay(server: SmtpServer): Socket {
  return connect({ host: server.connectTo, port: server.port, noDelay: true });
}

/** The pool's key: a digest, so no password sits in a map key (or in a heap dump's strings) twice. */
function keyOf(scope: string, server: SmtpServer): string {
  const parts = [
    scope,
    server.connectTo,
    server.host,
    server.port,
    server.secure,
    server.requireTls,
    server.auth?.user ?? null,
    server.auth?.pass ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}
