// A development SMTP server: smtp-server accepts every message (any or no authentication, no TLS: it
// listens on loopback), mailparser reads it, and the catcher keeps the latest ones in memory for its web
// page and for tests. Never a relay: nothing it receives leaves the process.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface CaughtMessage {
  id: number;
  receivedAt: Date;
  /** The SMTP envelope: who the client said it writes for and to (what was really delivered). */
  envelope: { from: string; to: string[] };
  from: string;
  subject: string;
  text: string;
  attachments: CaughtAttachment[];
  raw: Buffer;
}

export interface SmtpCatcherOptions {
  host?: string;
  /** 0 → a free port. */
  port?: number;
  /** Oldest messages are dropped beyond this many. */
  keep?: number;
}

export class SmtpCatcher {
  readonly messages: CaughtMessage[] = [];
  private server: SMTPServer;
  private nextId = 1;
  private waiters: Array<() => void> = [];
  port = 0;
  readonly host: string;
  private readonly keep: number;

  constructor(options: SmtpCatcherOptions = {}) {
    this.host = options.host ?? '127.0.0.1';
    this.port = options.port ?? 1025;
    this.keep = options.keep ?? 500;
    this.server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      // Loopback only: credentials a client sends in clear (as the tenant-api does with SMTP_URL's) are accepted.
      allowInsecureAuth: true,
      // Whatever credentials a client presents are accepted: this is a catcher, not a mailbox.
      onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'anonymous' }),
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('error', callback);
        stream.on('end', () => {
          // Accepted as soon as it is all here: parsing (a PDF attachment, a busy machine) must not make a
          // client time out and send the message again. The session's envelope is reset once answered.
          const envelope = { mailFrom: session.envelope.mailFrom, rcptTo: [...session.envelope.rcptTo] };
          callback();
          const raw = Buffer.concat(chunks);
          this.store(raw, envelope).catch((err: unknown) => {
            process.stderr.write(`mail catcher: unreadable message (${String(err)})\n`);
          });
        });
      },
      logger: false,
    });
  }

  private async store(
    raw: Buffer,
    envelope: { mailFrom: false | { address: string }; rcptTo: { address: string }[] },
  ): Promise<void> {
    const parsed = await simpleParser(raw);
    this.messages.push({
      id: this.nextId++,
      receivedAt: new Date(),
      envelope: {
        from: envelope.mailFrom ? envelope.mailFrom.address : '',
        to: envelope.rcptTo.map((r) => r.address),
      },
      from: parsed.from?.text ?? '',
      subject: parsed.subject ?? '',
      text: parsed.text ?? '',
      attachments: parsed.attachments.map((a) => ({
        filename: a.filename ?? 'adjunto',
        contentType: a.contentType,
        content: a.content,
      })),
      raw,
    });
    while (this.messages.length > this.keep) this.messages.shift();
    for (const wake of this.waiters.splice(0)) wake();
  }

  get url(): string {
    return `smtp://${this.host}:${this.port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** Resolves once at least `count` messages were caught; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<CaughtMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`mail catcher: ${this.messages.length} of ${count} messages`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.messages;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
