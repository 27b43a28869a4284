// The catcher's web page: the caught messages, newest first, with their text and attachments (each one a
// download), plus /messages.json for scripts. node:http only; every value is HTML-escaped.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CaughtMessage, SmtpCatcher } from './catcher';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function renderMessage(m: CaughtMessage): string {
  const attachments = m.attachments
    .map(
      (a, i) =>
        `<li><a href="/messages/${m.id}/attachments/${i}">${escapeHtml(a.filename)}</a> (${escapeHtml(a.contentType)}, ${a.content.length} bytes)</li>`,
    )
    .join('');
  return `<article>
<h2>${escapeHtml(m.subject || '(sin asunto)')}</h2>
<p><b>De:</b> ${escapeHtml(m.from)} · <b>Para:</b> ${escapeHtml(m.envelope.to.join(', '))} · <b>Recibido:</b> ${m.receivedAt.toISOString()} · <a href="/messages/${m.id}.eml">.eml</a></p>
${attachments ? `<ul>${attachments}</ul>` : ''}
<pre>${escapeHtml(m.text)}</pre>
</article>`;
}

export function renderPage(messages: readonly CaughtMessage[]): string {
  const list = [...messages].reverse().map(renderMessage).join('\n');
  return `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Correo capturado</title>
<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}article{border-top:1px solid #ccc;padding:.5rem 0}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}</style>
</head><body><h1>Correo capturado (${messages.length})</h1>
${list || '<p>Ningún mensaje todavía.</p>'}
</body></html>`;
}

export function summary(m: CaughtMessage) {
  return {
    id: m.id,
    receivedAt: m.receivedAt.toISOString(),
    envelope: m.envelope,
    from: m.from,
    subject: m.subject,
    attachments: m.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      size: a.content.length,
    })),
  };
}

export interface CatcherWeb {
  url: string;
  stop(): Promise<void>;
}

export async function startCatcherWeb(catcher: SmtpCatcher, host: string, port: number): Promise<CatcherWeb> {
  const find = (id: string | undefined) => catcher.messages.find((m) => m.id === Number(id));
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const eml = /^\/messages\/(\d+)\.eml$/.exec(path);
    const file = /^\/messages\/(\d+)\/attachments\/(\d+)$/.exec(path);
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(renderPage(catcher.messages));
      return;
    }
    if (path === '/messages.json') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(catcher.messages.map(summary)));
      return;
    }
    const message = find(eml?.[1]);
    if (message) {
      res.writeHead(200, { 'content-type': 'message/rfc822' }).end(message.raw);
      return;
    }
    const attachment = file ? find(file[1])?.attachments[Number(file[2])] : undefined;
    if (!attachment) {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, {
        'content-type': attachment.contentType,
        'content-disposition': `attachment; filename="${attachment.filename.replace(/["\r\n]/g, '')}"`,
      })
      .end(attachment.content);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
