// SmtpConnections against a real SMTP server in this process (smtp-server, the library mail servers in Node
// are built on): which e-mails share a connection, when connections close, that a server's refusal or a
// connection it dropped still end as the attempt's outcome, and that where STARTTLS is required a server
// that does not offer it gets neither the credentials nor the message.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@cr/testkit';
import type { SendMailOrder } from '../../test/support/send-mail-child';
import forge from 'node-forge';
import type { SMTPServerOptions } from 'smtp-server';
import { type CountingSmtp, startCountingSmtp } from '../../test/support/counting-smtp';
import { DEFAULT_MAIL_SETTINGS } from './mail-deps';
import { type ComposedMail, SmtpConnections } from './smtp-connections';
import { type SmtpServer, platformServer } from './smtp-server';

type Running = CountingSmtp;

const running: Running[] = [];

async function startServer(options: Partial<SMTPServerOptions> = {}): Promise<Running> {
  const state = await startCountingSmtp(options);
  running.push(state);
  return state;
}

function selfSignedLocalhost(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  const name = [{ name: 'commonName', value: 'localhost' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { key: keyPem, cert: forge.pki.certificateToPem(cert) };
}

function serverAt(port: number, auth?: { user: string; pass: string }): SmtpServer {
  return {
    host: 'localhost',
    connectTo: '127.0.0.1',
    port,
    secure: false,
    requireTls: false,
    ...(auth ? { auth } : {}),
    from: 'facturas@acme.cr',
    origin: 'tenant',
  };
}

function mail(n: number): ComposedMail {
  return {
    envelope: { from: 'facturas@acme.cr', to: ['cuentas@cliente.cr'] },
    raw: Buffer.from(
      `From: facturas@acme.cr\r\nTo: cuentas@cliente.cr\r\nSubject: ${n}\r\n\r\nFactura ${n}\r\n`,
    ),
  };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, probe: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await settle(20);
  }
}

let connections: SmtpConnections;

afterEach(async () => {
  connections?.close();
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

describe('SmtpConnections', () => {
  it('when e-mails follow each other to one server, then they go over one connection, each with its own reply', async () => {
    const smtp = await startServer();
    connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
    for (let n = 0; n < 5; n++) {
      const info = await connections.send('acme', serverAt(smtp.port), mail(n));
      expect(info.response).toMatch(/^250 /);
    }
    expect(smtp.received).toHaveLength(5);
    expect(new Set(smtp.received.map((r) => r.session)).size).toBe(1);
    expect(smtp.opened).toBe(1);
    expect(connections.open).toBe(1);
  });

  it('when two tenants use the same server, or a tenant changes its credentials, then they never share a connection', async () => {
    const smtp = await startServer();
    connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
    const first = serverAt(smtp.port, { user: 'facturas@acme.cr', pass: 'one' });
    await connections.send('acme', first, mail(1));
    await connections.send('other', first, mail(2));
    await connections.send('acme', { ...first, auth: { user: 'facturas@acme.cr', pass: 'two' } }, mail(3));
    await connections.send('acme', first, mail(4));
    expect(smtp.opened).toBe(3);
    const sessions = smtp.received.map((r) => r.session);
    expect(new Set(sessions).size).toBe(3);
    // The first and the last went over the same connection: the same tenant, the same settings.
    expect(sessions[3]).toBe(sessions[0]);
    expect(connections.open).toBe(3);
  });

  it("when the platform's server (SMTP_URL) sends for two tenants, then they share its connection, and a tenant's own server at the same place does not", async () => {
    const smtp = await startServer();
    connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
    const platform: SmtpServer = { ...serverAt(smtp.port), origin: 'plataforma' };
    await connections.send('acme', platform, mail(1));
    await connections.send('other', platform, mail(2));
    await connections.send('acme', serverAt(smtp.port), mail(3));
    const sessions = smtp.received.map((r) => r.session);
    expect(sessions[1]).toBe(sessions[0]);
    expect(sessions[2]).not.toBe(sessions[0]);
    expect(smtp.opened).toBe(2);
  });

  it('when a server has had no e-mail for the idle time, then its connection is closed, and the next e-mail opens another', async () => {
    const smtp = await startServer();
    connections = new SmtpConnections({ idleMs: 150, maxConnections: 4, timeoutMs: 5_000 });
    await connections.send('acme', serverAt(smtp.port), mail(1));
    await until('the idle connection closed', () => smtp.closed === 1);
    expect(connections.open).toBe(0);
    await connections.send('acme', serverAt(smtp.port), mail(2));
    expect(smtp.opened).toBe(2);
    expect(smtp.received).toHaveLength(2);
  });

  it('when the idle time is 0, then every e-mail has a connection of its own, closed after it', async () => {
    const smtp = await startServer();
    connections = new SmtpConnections({ idleMs: 0, maxConnections: 4, timeoutMs: 5_000 });
    for (let n = 0; n < 3; n++) await connections.send('acme', serverAt(smtp.port), mail(n));
    expect(connections.open).toBe(0);
    await until('every connection closed', () => smtp.closed === 3);
    expect(smtp.opened).toBe(3);
    expect(new Set(smtp.received.map((r) => r.session)).size).toBe(3);
  });

  it('when e-mails to one server go at once, then they use up to maxConnections connections and all arrive', async () => {
    const smtp = await startServer();
    connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 2, timeoutMs: 5_000 });
    const infos = await Promise.all(
      Array.from({ length: 6 }, (_, n) => connections.send('acme', serverAt(smtp.port), mail(n))),
    );
    expect(infos.every((i) => /^250 /.test(i.response))).toBe(true);
    expect(smtp.received).toHaveLength(6);
    expect(smtp.opened).toBe(2);
  });

  it('when the server refuses a message, then that send rejects with its reply and the next e-mail still goes', async () => {
    let refuse = true;
    const smtp = await startServer({
      onData(stream, session, cb) {
        stream.resume();
        stream.on('end', () => {
          if (refuse) {
            refuse = false;
            const err = new Error('4.3.2 mailbox busy') as Error & { responseCode: number };
            err.responseCode = 451;
            return cb(err);
          }
          smtp.received.push({ session: session.id, user: undefined, secure: session.secure });
          cb();
        });
      },
    });
    connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
    await expect(connections.send('acme', serverAt(smtp.port), mail(1))).rejects.toMatchObject({
      responseCode: 451,
      response: expect.stringContaining('mailbox busy'),
    });
    const info = await connections.send('acme', serverAt(smtp.port), mail(2));
    expect(info.response).toMatch(/^250 /);
    expect(smtp.received).toHaveLength(1);
  });

  it('when the server drops an idle connection, then the next e-mail goes over a new one, not failed', async () => {
    // The server ends a connection idle for 200 ms (with a 421), far sooner than our idle time.
    const smtp = await startServer({ socketTimeout: 200 });
    connections = new SmtpConnections({ idleMs: 10_000, maxConnections: 4, timeoutMs: 5_000 });
    await connections.send('acme', serverAt(smtp.port), mail(1));
    await until('the server ended the connection', () => smtp.closed === 1);
    await settle(50);
    const info = await connections.send('acme', serverAt(smtp.port), mail(2));
    expect(info.response).toMatch(/^250 /);
    expect(smtp.opened).toBe(2);
    expect(smtp.received).toHaveLength(2);
  });

  it('when nothing listens, then the send rejects with the connection error and nothing is kept', async () => {
    const smtp = await startServer();
    const port = smtp.port;
    await smtp.stop();
    running.splice(running.indexOf(smtp), 1);
    connections = new SmtpConnections({ idleMs: 100, maxConnections: 4, timeoutMs: 5_000 });
    await expect(connections.send('acme', serverAt(port), mail(1))).rejects.toMatchObject({
      code: 'ESOCKET',
      message: expect.stringContaining('ECONNREFUSED'),
    });
    // Nothing is kept for a server that never answered, once the idle time has passed.
    await until('the pool dropped', () => connections.open === 0);
  });

  describe('STARTTLS required', () => {
    // The servers of this file do not offer STARTTLS and take AUTH in clear (allowInsecureAuth), as a server
    // without TLS does, or as a real one looks once an attacker on the path has struck STARTTLS from its EHLO.
    it('when STARTTLS is required and the server does not offer it, then it gets no AUTH and no message, and the send rejects saying why', async () => {
      const smtp = await startServer();
      connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
      const server = {
        ...serverAt(smtp.port, { user: 'facturas@acme.cr', pass: 'smtp-secret' }),
        requireTls: true,
      };
      const failure = connections.send('acme', server, mail(1));
      await expect(failure).rejects.toMatchObject({
        code: 'ETLS',
        message: expect.stringMatching(
          /^the server did not accept STARTTLS \(5\d\d .*\); TLS is required before AUTH and the message, so nothing was sent$/,
        ),
      });
      await expect(failure).rejects.not.toMatchObject({ message: expect.stringContaining('smtp-secret') });
      expect(smtp.logins).toBe(0);
      expect(smtp.mailFrom).toBe(0);
      expect(smtp.received).toHaveLength(0);
    });

    it('when STARTTLS is not required (a server without TLS, no credentials), then the same server still gets the message in clear', async () => {
      const smtp = await startServer();
      connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
      const info = await connections.send('acme', serverAt(smtp.port), mail(1));
      expect(info.response).toMatch(/^250 /);
      expect(smtp.received).toEqual([expect.objectContaining({ secure: false })]);
    });

    it('when the requirement is switched on while a connection is open, then the next e-mail does not reuse it: a new one refuses to go on without TLS', async () => {
      const smtp = await startServer();
      connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
      await connections.send('acme', serverAt(smtp.port), mail(1));
      await expect(
        connections.send('acme', { ...serverAt(smtp.port), requireTls: true }, mail(2)),
      ).rejects.toMatchObject({ code: 'ETLS' });
      expect(smtp.opened).toBe(2);
      expect(smtp.received).toHaveLength(1);
    });

    it("when the platform's SMTP_URL is smtp:// with credentials, then STARTTLS is required; without credentials (the local mail catcher) it is not", async () => {
      const smtp = await startServer();
      connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
      const platform = (url: string) => platformServer({ ...DEFAULT_MAIL_SETTINGS, smtpUrl: url })!;
      const withCredentials = platform(`smtp://relay%40acme.cr:op-secret@127.0.0.1:${smtp.port}`);
      expect(withCredentials).toMatchObject({
        secure: false,
        requireTls: true,
        auth: { user: 'relay@acme.cr' },
      });
      await expect(connections.send('acme', withCredentials, mail(1))).rejects.toMatchObject({
        code: 'ETLS',
      });
      expect(smtp.logins).toBe(0);
      const catcher = platform(`smtp://127.0.0.1:${smtp.port}`);
      expect(catcher).toMatchObject({ secure: false, requireTls: false });
      expect((await connections.send('acme', catcher, mail(2))).response).toMatch(/^250 /);
      expect(smtp.received).toHaveLength(1);
      expect(platform('smtps://relay:op-secret@smtp.example.com')).toMatchObject({ secure: true, port: 465 });
    });
  });

  describe('TLS', () => {
    // A self-signed certificate for localhost: no CA this process trusts signed it.
    const certificate = selfSignedLocalhost();
    const tlsServer = (secure: boolean) =>
      startServer({
        secure,
        ...certificate,
        disabledCommands: [],
        allowInsecureAuth: false,
        authOptional: false,
      });

    // In jest's process no CA signed the certificate: the handshake runs and refuses it. The whole conversation
    // with a trusted certificate runs in a child process started with NODE_EXTRA_CA_CERTS (below), which Node
    // reads only when it starts.
    it('when the server uses TLS from the first byte or after STARTTLS, then the handshake runs on our connection and its certificate is checked', async () => {
      connections = new SmtpConnections({ idleMs: 5_000, maxConnections: 4, timeoutMs: 5_000 });
      for (const secure of [true, false]) {
        const smtp = await tlsServer(secure);
        await expect(
          connections.send(
            'acme',
            { ...serverAt(smtp.port, { user: 'u', pass: 'p' }), secure, requireTls: true },
            mail(1),
          ),
        ).rejects.toThrow(/self[- ]signed certificate/);
        expect(smtp.received).toHaveLength(0);
      }
    });

    /** Sends `count` e-mails from a process that trusts `certificate` (NODE_EXTRA_CA_CERTS). */
    async function sendTrusting(
      server: SmtpServer,
      count: number,
    ): Promise<{ code: number | null; out: string }> {
      const dir = mkdtempSync(join(tmpdir(), 'smtp-tls-'));
      try {
        writeFileSync(join(dir, 'ca.pem'), certificate.cert);
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', join(REPO_ROOT, 'apps/tenant-api/test/support/send-mail-child.ts')],
          {
            env: {
              ...process.env,
              NODE_OPTIONS: '',
              NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
              SEND_MAIL_ORDER: JSON.stringify({
                server,
                mails: Array.from({ length: count }, (_, i) => {
                  const { envelope, raw } = mail(i + 1);
                  return { envelope, raw: raw.toString() };
                }),
              } satisfies SendMailOrder),
            },
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
        return { code, out: out.trim() };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    it('when the server’s certificate is trusted, then e-mails go over TLS (from the first byte, or after STARTTLS) with AUTH, on one connection', async () => {
      for (const secure of [true, false]) {
        const smtp = await tlsServer(secure);
        const sent = await sendTrusting(
          { ...serverAt(smtp.port, { user: 'u', pass: 'p' }), secure, requireTls: true },
          2,
        );
        expect(sent).toEqual({ code: 0, out: 'sent 2' });
        expect(smtp.received).toHaveLength(2);
        expect(smtp.received.every((r) => r.secure && r.user === 'u')).toBe(true);
        expect(new Set(smtp.received.map((r) => r.session)).size).toBe(1);
      }
    }, 60_000);

    it('when the name given is not the certificate’s, then nothing is sent: the certificate is checked against the name, not the address connected to', async () => {
      const smtp = await tlsServer(false);
      const server = {
        ...serverAt(smtp.port, { user: 'u', pass: 'p' }),
        host: 'mail.example.cr',
        requireTls: true,
      };
      const sent = await sendTrusting(server, 1);
      expect(sent.code).toBe(1);
      expect(sent.out).toMatch(/^failed: .*(altnames|mail\.example\.cr)/i);
      expect(smtp.received).toHaveLength(0);
    }, 60_000);
  });

  it('when closed (shutdown), then the open connections end and a later send is refused', async () => {
    const smtp = await startServer();
    connections = new SmtpConnections({ idleMs: 60_000, maxConnections: 4, timeoutMs: 5_000 });
    await connections.send('acme', serverAt(smtp.port), mail(1));
    connections.close();
    await until('the connection closed', () => smtp.closed === 1);
    expect(connections.open).toBe(0);
    await expect(connections.send('acme', serverAt(smtp.port), mail(2))).rejects.toThrow(/closed/);
  });
});
