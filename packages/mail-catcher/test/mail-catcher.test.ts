// The catcher through its real interfaces: nodemailer speaks SMTP to it, the page and the downloads are
// fetched over HTTP.
import nodemailer from 'nodemailer';
import { type RunningMailCatcher, startMailCatcher } from '../src';

let running: RunningMailCatcher;
beforeAll(async () => {
  running = await startMailCatcher({ smtpPort: 0, webPort: 0 });
});
afterAll(() => running.stop());

async function send(subject: string, attachment: Buffer): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: running.catcher.port,
    secure: false,
    auth: { user: 'someone', pass: 'anything' },
  });
  await transport.sendMail({
    from: 'Facturación <facturas@acme.cr>',
    to: ['cliente@pixdea.cr', 'copia@pixdea.cr'],
    subject,
    text: 'Adjuntamos su factura electrónica.',
    attachments: [{ filename: 'factura.pdf', content: attachment, contentType: 'application/pdf' }],
  });
  transport.close();
}

describe('mail catcher', () => {
  it('when a message is sent over SMTP, then it is kept with its envelope, text and attachment bytes', async () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10]);
    await send('Factura 001', bytes);
    const [m] = await running.catcher.waitFor(1);
    expect(m).toMatchObject({
      envelope: { from: 'facturas@acme.cr', to: ['cliente@pixdea.cr', 'copia@pixdea.cr'] },
      subject: 'Factura 001',
      text: 'Adjuntamos su factura electrónica.',
    });
    expect(m!.attachments).toEqual([
      { filename: 'factura.pdf', contentType: 'application/pdf', content: bytes },
    ]);

    const download = await fetch(`${running.web.url}/messages/${m!.id}/attachments/0`);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="factura.pdf"');
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
  });

  it('when the page is asked for, then it lists the messages with their subjects escaped', async () => {
    await send('<script>alert(1)</script>', Buffer.from('x'));
    await running.catcher.waitFor(2);
    const page = await (await fetch(`${running.web.url}/`)).text();
    expect(page).toContain('Correo capturado (2)');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>alert');
    expect(page).toContain('factura.pdf');
    const json = (await (await fetch(`${running.web.url}/messages.json`)).json()) as { subject: string }[];
    expect(json.map((m) => m.subject)).toEqual(['Factura 001', '<script>alert(1)</script>']);
  });

  it('when an unknown message or attachment is asked for, then 404', async () => {
    expect((await fetch(`${running.web.url}/messages/999/attachments/0`)).status).toBe(404);
    expect((await fetch(`${running.web.url}/nope`)).status).toBe(404);
  });
});
