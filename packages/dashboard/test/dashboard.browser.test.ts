// The dashboard in a real headless Chromium against the real services in this process (@cr/stack:
// auth-server, tenant-api with the built dashboard, hacienda-sandbox): sign in, find an accepted invoice and
// download its PDF, totals in their currency and in cents, read a rejected one's reason, replay a webhook
// (the note, from the replay's answer alone, naming the event queued, or saying that nothing will be
// delivered without a URL or to an endpoint a 410 Gone deactivated), every page in Spanish and English and on
// a phone; the session cookie's flags, a state-changing call without the CSRF header refused, another
// tenant's documents never shown (the API's refusal led by a sentence in the page's language), a webhook URL
// refused the same way, sign-out revoking the token, and a sign-out the auth-server did not confirm told as
// such (the token still valid until its exp); a rejection refused without its reason before anything is sent,
// received documents past the first page loaded and answered, dates and e-mail states in English, and a
// session that ended while the page was open taking it back to the sign-in form.
// Screenshots go to test-artifacts/.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WebhookConsultResponse } from '@cr/contracts';
import { DEMO_EMISOR, type Stack, invoice, startStack } from '@cr/stack';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { chromiumAvailable, launchChromium } from './support/chromium';
import { type Receiver, TenantClient, startReceiver, tenantFetch } from './support/tenant-setup';

jest.setTimeout(180_000);

const ARTIFACTS = join(__dirname, '..', 'test-artifacts');
const PASSWORD = 'acme-dashboard-password-1';
const run = chromiumAvailable() ? describe : describe.skip;

let stack: Stack;
let receiver: Receiver;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let page: Page;
let accepted: string;
let rejected: string;
let globexClave: string;
let dollarClave: string;
let receivedClave: string;
let toRejectClave: string;
let acme: TenantClient;
let globex: TenantClient;

/**
 * Suppliers' documents for globex: acme's invoices addressed to the demo taxpayer, which globex has
 * registered as its issuer too, uploaded to globex's inbox as a supplier's XML would be. Their claves.
 * Without `waitForHacienda` each signed XML is taken as soon as acme stored it: a document Hacienda has not
 * answered yet is received all the same, and many are ready much sooner.
 */
async function supplyGlobex(
  numerosReferencia: number[],
  waitForHacienda: boolean,
  change: Record<string, unknown> = {},
  waitMs = 60_000,
): Promise<string[]> {
  const token = await acme.login();
  const claves: string[] = [];
  for (const n of numerosReferencia) {
    const base = invoice(n);
    const doc = {
      ...base,
      ...change,
      receptor: { ...(base.receptor as object), identificacion: { tipo: '02', numero: DEMO_EMISOR } },
    };
    const sent = waitForHacienda
      ? await acme.submitAndWait(doc, waitMs)
      : (await acme.api<{ clave: string }>('POST', '/api/enviar/items', doc)).body;
    const xml = await tenantFetch(`${stack.tenantUrl('acme')}/api/descargar/${sent.clave}/xml`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (xml.status !== 200) throw new Error(`xml of ${sent.clave}: ${xml.status}`);
    const received = await globex.api('POST', '/api/recepcion/documentos', {
      receptor: DEMO_EMISOR,
      xml: Buffer.from(await xml.text()).toString('base64'),
    });
    if (received.status !== 201) throw new Error(`recepcion: ${JSON.stringify(received.body)}`);
    claves.push(sent.clave);
  }
  return claves;
}

/** An instant in Costa Rica time, as every date of the dashboard is written (the browser is in Madrid). */
const crTime = (iso: string, locale: string) =>
  new Intl.DateTimeFormat(locale, {
    timeZone: 'America/Costa_Rica',
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(new Date(iso));

const appUrl = (tenant: string, path = '/app/') => `http://${tenant}.localhost:${stack.tenantPort}${path}`;
const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

/** The note a webhook replay leaves, on a document's page or the webhook page. */
const replayNote = () => page.getByRole('status').filter({ hasText: 'Reenvío del webhook' });

/**
 * Clicks "Reenviar webhook" and returns the event id the API answered, once the page's note names it. The
 * note is made from the replay's answer alone: on a document's page no POST /api/consultar/webhook is sent
 * (the webhook page reloads its own view of the webhook after a replay, so there one is).
 */
async function replayFromPage(): Promise<string> {
  const consulted: string[] = [];
  const seen = (req: { url(): string }) => {
    if (new URL(req.url()).pathname === '/api/consultar/webhook') consulted.push(req.url());
  };
  page.on('request', seen);
  try {
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/reenviar/webhook');
    await page.getByRole('button', { name: 'Reenviar webhook' }).click();
    const { eventId } = ((await (await answered).json()) as { data: { eventId: string } }).data;
    await replayNote().filter({ hasText: eventId }).waitFor();
    if (new URL(page.url()).pathname.startsWith('/app/documentos/')) expect(consulted).toEqual([]);
    return eventId;
  } finally {
    page.off('request', seen);
  }
}

/**
 * Opens `path` on `tenant`'s dashboard and waits for `ready`. The session of an earlier test is kept; when a
 * test runs alone there is none, and it signs in with `password` first.
 */
async function openSignedIn(tenant: string, path: string, password: string, ready: Locator): Promise<void> {
  await page.goto(appUrl(tenant, path));
  const signIn = page.getByLabel('Contraseña');
  await ready.or(signIn).first().waitFor();
  if (await signIn.isVisible()) {
    await signIn.fill(password);
    await page.getByRole('button', { name: 'Ingresar' }).click();
    await ready.waitFor();
  }
}

run('the dashboard in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await startStack();
    receiver = await startReceiver();
    await stack.createTenant('acme', PASSWORD);
    await stack.createTenant('globex', 'globex-dashboard-password-1');
    acme = new TenantClient(stack, 'acme', PASSWORD);
    globex = new TenantClient(stack, 'globex', 'globex-dashboard-password-1');
    for (const t of [acme, globex]) {
      await t.login();
      const registered = await t.api('POST', '/api/enviar/emisor', stack.demoEmisor());
      if (registered.status !== 200) throw new Error(`emisor: ${JSON.stringify(registered.body)}`);
    }
    await acme.api('POST', '/api/configurar/webhook', { url: receiver.url });
    const ok = await acme.submitAndWait(invoice(1));
    // An activity the sandbox's registry does not list for the demo taxpayer: Hacienda rejects it.
    const bad = await acme.submitAndWait({ ...invoice(2), codigoActividad: '4711.0' });
    expect([ok.estado, bad.estado]).toEqual(['aceptado', 'rechazado']);
    accepted = ok.clave;
    rejected = bad.clave;
    globexClave = (await globex.submitAndWait(invoice(7))).clave;
    const dollars = await acme.api<{ clave: string }>('POST', '/api/enviar/items', {
      ...invoice(5),
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'USD', tipoCambio: '505.50' },
        mediosPago: [{ tipoMedioPago: '01' }],
      },
    });
    if (dollars.status !== 200) throw new Error(`USD invoice: ${JSON.stringify(dollars.body)}`);
    dollarClave = dollars.body.clave;
    [receivedClave, toRejectClave] = (await supplyGlobex([3, 4], true)) as [string, string];
    chromium = await launchChromium();
    context = chromium.context;
    page = context.pages()[0] ?? (await context.newPage());
  }, 300_000);

  afterAll(async () => {
    await chromium?.close();
    await receiver?.close();
    await stack?.stop();
  });

  it('when the tenant signs in with its base and password, then the token is only in an httpOnly, Secure, SameSite=Strict cookie', async () => {
    await page.goto(appUrl('acme'));
    await page.getByLabel('Contraseña').waitFor();
    expect(await page.getByLabel('Base (cliente)').inputValue()).toBe('acme');
    await shot('01-ingreso');
    await page.getByLabel('Contraseña').fill('wrong-password');
    await page.getByRole('button', { name: 'Ingresar' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'La base o la contraseña no son correctas' });
    await refused.waitFor();
    expect(await refused.textContent()).not.toMatch(/base or password is incorrect/);
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Ingresar' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Documentos' }).waitFor();

    const cookies = await context.cookies(appUrl('acme'));
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({
      name: '__Host-cr_session',
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
      path: '/',
      domain: 'acme.localhost',
    });
    const token = cookies[0]!.value;
    const seen = await page.evaluate(() => ({
      cookie: document.cookie,
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
    }));
    expect(seen.cookie).toBe('');
    expect(seen.local).not.toContain(token);
    expect(seen.session).not.toContain(token);
  });

  it('when the accepted invoice is found with the filters, then its page explains it and its PDF downloads', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Documentos' }).click();
    await page.locator(`tr[data-clave="${accepted}"]`).waitFor();
    await shot('02-documentos');
    await page.getByLabel('Estado').selectOption('aceptado');
    await page.getByRole('button', { name: 'Aplicar' }).click();
    await page.locator(`tr[data-clave="${rejected}"]`).waitFor({ state: 'detached' });
    await page.locator(`tr[data-clave="${accepted}"] a`).click();
    await page.getByText('Hacienda aceptó el comprobante').waitFor();
    expect(page.url()).toBe(appUrl('acme', `/app/documentos/${accepted}`));
    await shot('03-documento-aceptado');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'PDF' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${accepted}.pdf`);
    const pdf = readFileSync((await download.path())!);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('when the documents are listed, then each total is written with its currency, in cents, as Costa Rica writes numbers', async () => {
    await page.goto(appUrl('acme', '/app/documentos'));
    const total = (clave: string) => page.locator(`tr[data-clave="${clave}"] td[data-label="Total"]`);
    await total(dollarClave).waitFor();
    // 11300.00000 from the API; \s is the no-break space between the currency and the thousands.
    expect(await total(accepted).textContent()).toMatch(/^₡\s11\s300,00$/);
    expect(await total(dollarClave).textContent()).toMatch(/^USD\s11\s300,00$/);
    await page.getByLabel('Idioma').selectOption('en');
    try {
      await total(dollarClave)
        .filter({ hasText: /^USD\s11,300\.00$/ })
        .waitFor();
    } finally {
      await page.getByLabel('Language').selectOption('es');
    }
  });

  it('when a language is chosen and the page is left at once, then the next page opens in it', async () => {
    await page.goto(appUrl('acme', '/app/documentos'));
    await page.getByLabel('Idioma').waitFor();
    // What the next page reads, at the moment of the choice: a page may be left before any later moment
    // (a render's effects run after the next frame).
    const stored = await page.evaluate(() => {
      const select = document.querySelector<HTMLSelectElement>('label.lang select')!;
      select.value = 'en';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      return localStorage.getItem('lang');
    });
    expect(stored).toBe('en');
    await page.goto(appUrl('acme', '/app/documentos'));
    await page.getByLabel('Language').waitFor({ timeout: 10_000 });
    await page.getByLabel('Language').selectOption('es');
    await page.goto(appUrl('acme', '/app/documentos'));
    await page.getByLabel('Idioma').waitFor({ timeout: 10_000 });
  });

  it("when the rejected invoice is opened, then Hacienda's reason is shown in plain Spanish", async () => {
    await page.goto(appUrl('acme', `/app/documentos/${rejected}`));
    await page.getByRole('heading', { name: 'Motivos del rechazo' }).waitFor();
    await page.getByText('Hacienda rechazó el comprobante').waitFor();
    await page.getByText(/actividad económica 4711\.0 no está registrada/).waitFor();
    await shot('04-documento-rechazado');
  });

  it('when the webhook is replayed from the document page, then the note says which event was queued, the receiver gets that event and the delivery is listed', async () => {
    await page.goto(appUrl('acme', `/app/documentos/${accepted}`));
    await page.getByRole('button', { name: 'Reenviar webhook' }).waitFor();
    const eventId = await replayFromPage();
    expect(await replayNote().textContent()).toBe(`Reenvío del webhook puesto en cola (evento ${eventId}).`);
    const deadline = Date.now() + 15_000;
    while (!receiver.received.some((r) => r.headers['webhook-id'] === eventId)) {
      if (Date.now() > deadline) throw new Error(`the replayed webhook ${eventId} never arrived`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.reload();
    await page.getByRole('heading', { name: 'Entregas del webhook' }).waitFor();
    await shot('05-webhook-reenviado');
  });

  it("when the e-mail is resent from the document page, then a resend to the receptor's address is listed", async () => {
    await page.goto(appUrl('acme', `/app/documentos/${accepted}`));
    await page.getByRole('button', { name: 'Reenviar correo' }).click();
    await page.getByRole('status').filter({ hasText: 'Correo puesto en cola.' }).waitFor();
    const resend = page.locator('table.mails tr').filter({ hasText: 'Reenvío' });
    await resend.waitFor();
    expect(await resend.textContent()).toContain('facturas@pixdea.cr');
    await shot('05b-correo-reenviado');
  });

  it('when a state-changing call carries the cookie but not the CSRF header, then it is refused with 403', async () => {
    const attempt = (withCsrf: boolean) =>
      page.evaluate(
        async ({ clave, withCsrf }) => {
          const session = (await (await fetch('/app/session')).json()) as { data: { csrf: string } };
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (withCsrf) headers['x-csrf-token'] = session.data.csrf;
          const r = await fetch('/api/reenviar/webhook', {
            method: 'POST',
            headers,
            body: JSON.stringify({ clave }),
          });
          return { status: r.status, body: await r.json() };
        },
        { clave: accepted, withCsrf },
      );
    const refused = await attempt(false);
    expect(refused).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect((await attempt(true)).status).toBe(200);
  });

  it("when acme looks for globex's documents, then they are never shown", async () => {
    const listed = await page.evaluate(async () => (await fetch('/api/documentos?limite=200')).text());
    expect(listed).toContain(accepted);
    expect(listed).not.toContain(globexClave);
    await page.goto(appUrl('acme', `/app/documentos/${globexClave}`));
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`No se encontró — clave: document ${globexClave} not found`);
    await page.goto(appUrl('acme', '/app/documentos'));
    await page.getByLabel('Texto (clave, consecutivo, referencia)').fill(globexClave);
    await page.getByRole('button', { name: 'Aplicar' }).click();
    await page.getByText('No hay documentos con esos filtros.').waitFor();
  });

  it.each([
    ['emisores', 'Emisores', '06-emisores'],
    ['recibidos', 'Documentos recibidos', '07-recibidos'],
    ['webhook', 'Webhook', '08-webhook'],
  ])('when the %s page opens, then its heading and content are shown', async (path, heading, file) => {
    await page.goto(appUrl('acme', `/app/${path}`));
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
    if (path === 'emisores') await page.getByText(stack.demoEmisor().nombreComercial).first().waitFor();
    if (path === 'webhook') {
      // The form is filled once the tenant's settings arrive, after the heading: wait for the value.
      const input = await page.getByLabel('URL').elementHandle();
      await page
        .waitForFunction(({ el, want }) => (el as HTMLInputElement).value === want, {
          el: input,
          want: receiver.url,
        })
        .catch(() => undefined);
      expect(await page.getByLabel('URL').inputValue()).toBe(receiver.url);
    }
    await page.waitForLoadState('networkidle');
    await shot(file);
  });

  it('when saving the webhook URL fails, then the URL typed stays in the field', async () => {
    await page.goto(appUrl('acme', '/app/webhook'));
    const input = page.getByLabel('URL');
    await page.waitForFunction(({ el, want }) => (el as HTMLInputElement).value === want, {
      el: await input.elementHandle(),
      want: receiver.url,
    });
    // http is only for a loopback host: the tenant-api refuses it with a 400.
    await input.fill('http://example.com/hook');
    await page.getByRole('button', { name: 'Guardar y rotar secreto' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await input.inputValue()).toBe('http://example.com/hook');
    // The refusal said in the page's language, then the API's own message naming the field.
    expect(await alert.textContent()).toBe('La solicitud tiene datos inválidos — url: must use https');
    await page.getByLabel('Idioma').selectOption('en');
    try {
      await alert.filter({ hasText: /^The request has invalid data — url: must use https$/ }).waitFor();
    } finally {
      await page.getByLabel('Language').selectOption('es');
    }
  });

  it('when a webhook is replayed from the webhook page with a URL set, then the note says which event was queued', async () => {
    await page.goto(appUrl('acme', '/app/webhook'));
    await page.getByLabel('Clave').fill(accepted);
    const eventId = await replayFromPage();
    expect(await replayNote().textContent()).toBe(`Reenvío del webhook puesto en cola (evento ${eventId}).`);
  });

  it("when the receiver answered 410 Gone, then a replay's note says the webhook is deactivated, since when and why, and that saving the URL again reactivates it; the webhook page says it is deactivated", async () => {
    // A third tenant, whose only receiver answers 410: its accepted invoice's event deactivates the endpoint.
    const gone = await startReceiver({ status: 410 });
    try {
      await stack.createTenant('initech', 'initech-dashboard-password-1');
      const initech = new TenantClient(stack, 'initech', 'initech-dashboard-password-1');
      await initech.login();
      const registered = await initech.api('POST', '/api/enviar/emisor', stack.demoEmisor());
      if (registered.status !== 200) throw new Error(`emisor: ${JSON.stringify(registered.body)}`);
      await initech.api('POST', '/api/configurar/webhook', { url: gone.url });
      const { clave } = await initech.submitAndWait(invoice(1));
      type Consulted = { data: WebhookConsultResponse['data'] };
      const consult = async () =>
        (await initech.api<Consulted>('POST', '/api/consultar/webhook', {})).body.data;
      const deactivatedBy = Date.now() + 30_000;
      let hook = await consult();
      while (hook.activo) {
        if (Date.now() > deactivatedBy) throw new Error(`still active: ${JSON.stringify(hook)}`);
        await new Promise((r) => setTimeout(r, 200));
        hook = await consult();
      }
      expect(gone.received).toHaveLength(1);
      expect(hook.motivoDesactivacion).toBe('receiver answered 410 Gone');

      const replay = page.getByRole('button', { name: 'Reenviar webhook' });
      await openSignedIn('initech', `/app/documentos/${clave}`, 'initech-dashboard-password-1', replay);
      const eventId = await replayFromPage();
      const note = replayNote();
      expect(await note.textContent()).toBe(
        `Reenvío del webhook puesto en cola (evento ${eventId}), pero el webhook está desactivado desde el ${crTime(hook.desactivadoEn!, 'es-CR')} (motivo: receiver answered 410 Gone): no se entregará nada. Guarde la URL de nuevo en Webhooks para reactivarlo.`,
      );
      await shot('05d-webhook-desactivado');
      await page.getByLabel('Idioma').selectOption('en');
      try {
        await page
          .getByRole('status')
          .filter({
            hasText: `Webhook replay queued (event ${eventId}), but the webhook is deactivated since ${crTime(hook.desactivadoEn!, 'en-US')} (reason: receiver answered 410 Gone): nothing will be delivered. Save the URL again in Webhooks to reactivate it.`,
          })
          .waitFor();
      } finally {
        await page.getByLabel('Language').selectOption('es');
      }
      // What the note says: the delivery of the replayed event sends nothing.
      const attemptedBy = Date.now() + 15_000;
      while (!(await consult()).entregas.some((d) => d.eventId === eventId)) {
        if (Date.now() > attemptedBy) throw new Error(`the replayed event ${eventId} was never attempted`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect((await consult()).entregas.find((d) => d.eventId === eventId)?.error).toBe(
        'webhook endpoint is disabled',
      );
      expect(gone.received).toHaveLength(1);

      await note.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhook', exact: true }).waitFor();
      await page.getByText('Desactivado: receiver answered 410 Gone').waitFor();
      // On the webhook page, the form to save the URL again is the page itself.
      await page.getByLabel('Clave').fill(clave);
      await replayFromPage();
      expect(await note.textContent()).toMatch(
        /: no se entregará nada\. Guarde la URL de nuevo para reactivarlo\.$/,
      );
    } finally {
      await gone.close();
    }
  });

  it('when a renewed .p12 is uploaded on the issuers page, then the issuer is updated with it', async () => {
    const emisor = stack.demoEmisor();
    await page.goto(appUrl('acme', '/app/emisores'));
    await page.getByText('Actualizar certificado (.p12)').first().click();
    const values: Record<string, string> = {
      tipoIdentificacion: String(emisor.tipoIdentificacion),
      codigoActividad: String(emisor.codigoActividad),
      sucursal: String(emisor.sucursal),
      nombreComercial: 'Demo renovado',
      telefono: emisor.telefono,
      correoElectronico: emisor.correoElectronico,
      ...emisor.ubicacion,
      ambiente: String(emisor.ambiente),
      usuarioHacienda: emisor.usuarioHacienda,
      claveHacienda: Buffer.from(emisor.claveHacienda, 'base64').toString('utf8'),
      pinCertificado: emisor.pinCertificado,
    };
    for (const [name, value] of Object.entries(values))
      await page.locator(`input[name="${name}"]`).fill(value);
    await page.locator('input[name="certificado"]').setInputFiles(stack.demo.p12Path);
    await page.getByRole('button', { name: 'Actualizar certificado (.p12)' }).click();
    await page.getByRole('heading', { name: /Demo renovado/ }).waitFor();
    await shot('06b-emisor-actualizado');
  });

  it('when CABYS is searched, then codes with their VAT are listed', async () => {
    await page.goto(appUrl('acme', '/app/cabys'));
    await page.getByLabel('Producto o servicio').fill('café');
    await page.getByRole('button', { name: 'Buscar' }).click();
    await page.locator('td.mono').first().waitFor();
    expect(await page.locator('td.mono').first().textContent()).toMatch(/^\d{13}$/);
    await shot('09-cabys');
  });

  it('when English is chosen, then the dashboard speaks English, and on a phone the table becomes cards', async () => {
    await page.goto(appUrl('acme', '/app/documentos'));
    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('navigation').getByRole('link', { name: 'Documents' }).waitFor();
    await shot('10-documents-en');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByLabel('Language').selectOption('es');
    await page.locator(`tr[data-clave="${accepted}"]`).waitFor();
    const header = await page.locator('table.list thead').boundingBox();
    expect(header?.height ?? 0).toBeLessThanOrEqual(1);
    await shot('11-documentos-telefono');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("when the document page is shown in English, then its e-mail's state and its dates are English too", async () => {
    await page.goto(appUrl('acme', `/app/documentos/${accepted}`));
    await page.getByLabel('Idioma').selectOption('en');
    // The stack has no SMTP server: the e-mail after acceptance is given up at once (fallido).
    const mail = page.locator('table.mails tbody tr').filter({ hasText: 'On acceptance' });
    try {
      await mail
        .locator('td[data-label="State"]')
        .filter({ hasText: /^Failed$/ })
        .waitFor();
      // "Dec 6, 2026, 3:31 PM" (Intl puts a narrow no-break space before PM, which \s matches).
      const english = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/;
      for (const when of await page.locator('ol.timeline time').allTextContents())
        expect(when).toMatch(english);
      expect(await page.locator('dl.facts time').textContent()).toMatch(english);
      expect(await mail.locator('td[data-label="Date"]').textContent()).toMatch(english);
      await shot('10b-document-en');
    } finally {
      // The choice is kept in localStorage: the tests after this one read Spanish.
      await page.getByLabel('Language').selectOption('es');
    }
    const correo = page.locator('table.mails tbody tr').filter({ hasText: 'Al aceptarse' });
    await correo
      .locator('td[data-label="Estado"]')
      .filter({ hasText: /^Fallido$/ })
      .waitFor();
    // "6 dic 2026, 3:31 p. m."
    expect(await page.locator('ol.timeline time').first().textContent()).toMatch(
      /^\d{1,2} [a-z]{3}\.? \d{4}/,
    );
  });

  it("when globex signs in and accepts a supplier's document, then its answer goes to Hacienda and acme's session is not globex's", async () => {
    await page.goto(appUrl('globex', '/app/recibidos'));
    await page.getByLabel('Contraseña').fill('globex-dashboard-password-1');
    await page.getByRole('button', { name: 'Ingresar' }).click();
    const card = page.getByRole('article', { name: receivedClave });
    await card.waitFor();
    expect(await card.textContent()).toContain('Pendiente');
    // The supplier's 11300.00000 colones, as the documents list writes amounts.
    expect(await card.locator('dt:has-text("Total") + dd').textContent()).toMatch(/^₡\s11\s300,00$/);
    // Each finding named by its severity, what needs attention before what was checked and found right.
    const findings = await card.locator('.received-findings li').allTextContents();
    expect(findings[0]).toMatch(/^Advertencia: /);
    expect(findings.at(-1)).toMatch(/^Verificado: /);
    await shot('07b-recibido-pendiente');
    await card.getByLabel('Número de referencia').fill('1');
    await card.getByLabel(/Condición del IVA/).selectOption('01');
    await card.getByRole('button', { name: 'Aceptar' }).click();
    await card
      .getByText('Respondiendo')
      .or(card.getByText('Respondido'))
      .or(card.getByRole('alert'))
      .first()
      .waitFor();
    expect(await card.getByRole('alert').allTextContents()).toEqual([]);
    // The answer sent, with its number and its state at Hacienda.
    expect(await card.locator('.answer-sent').textContent()).toMatch(/^Respuesta: Aceptación \d{20} /);
    await shot('07c-recibido-aceptado');
    // Two host-only cookies, one per tenant host: neither is sent to the other's host.
    const [acmeCookies, globexCookies] = [
      await context.cookies(appUrl('acme')),
      await context.cookies(appUrl('globex')),
    ];
    expect(acmeCookies.map((c) => c.domain)).toEqual(['acme.localhost']);
    expect(globexCookies.map((c) => c.domain)).toEqual(['globex.localhost']);
    expect(acmeCookies[0]!.value).not.toBe(globexCookies[0]!.value);
  });

  it('when globex rejects a document without a reason, then the form asks for it before sending anything, and with one the rejection goes', async () => {
    await page.goto(appUrl('globex', '/app/recibidos'));
    const card = page.getByRole('article', { name: toRejectClave });
    await card.waitFor();
    const answers: string[] = [];
    const seen = (req: { url(): string }) => {
      if (req.url().endsWith('/respuesta')) answers.push(req.url());
    };
    page.on('request', seen);
    try {
      await card.getByLabel('Número de referencia').fill('2');
      await card.getByRole('button', { name: 'Rechazar' }).click();
      await card.getByRole('alert').filter({ hasText: 'Escriba el motivo' }).waitFor();
      expect(answers).toEqual([]);
      // The reason is the focused field, and its label says when it is required.
      const reason = card.getByLabel('Motivo (obligatorio para rechazar)');
      expect(await reason.evaluate((el) => el === document.activeElement)).toBe(true);
      await shot('07d-rechazo-sin-motivo');
      await reason.fill('Mercadería no recibida');
      await card.getByRole('button', { name: 'Rechazar' }).click();
      await card.getByText('Respondiendo').or(card.getByText('Respondido')).first().waitFor();
      expect(answers).toHaveLength(1);
      expect(await card.getByRole('alert').allTextContents()).toEqual([]);
    } finally {
      page.off('request', seen);
    }
  });

  it("when globex opens its answer from its documents list, then the answer's page is shown", async () => {
    await page.goto(appUrl('globex', '/app/documentos'));
    // Listed under the 50-digit clave it answers (its own row is keyed `<clave>-<consecutivo>`).
    const row = page.locator(`tr[data-clave="${receivedClave}"]`);
    await row.waitFor();
    expect(await row.locator('td[data-label="Tipo"]').textContent()).toBe('Aceptación');
    await row.locator('a').click();
    await page.getByRole('heading', { name: /^Aceptación \d{20}/ }).waitFor();
    expect(page.url()).toBe(appUrl('globex', `/app/documentos/${receivedClave}`));
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('when globex, which has no webhook URL, replays a webhook, then the note says the event was queued but nothing will be delivered, on the document page with the way to the webhook page', async () => {
    const replay = page.getByRole('button', { name: 'Reenviar webhook' });
    await openSignedIn('globex', `/app/documentos/${globexClave}`, 'globex-dashboard-password-1', replay);
    const noUrl = (eventId: string) =>
      `Reenvío del webhook puesto en cola (evento ${eventId}), pero no hay una URL de webhook configurada: no se entregará nada.`;
    let eventId = await replayFromPage();
    const note = replayNote();
    expect(await note.textContent()).toBe(`${noUrl(eventId)} Configure una en Webhooks.`);
    await shot('05c-webhook-sin-url');
    await page.getByLabel('Idioma').selectOption('en');
    try {
      await page
        .getByRole('status')
        .filter({
          hasText: `Webhook replay queued (event ${eventId}), but no webhook URL is configured: nothing will be delivered. Set one in Webhooks.`,
        })
        .waitFor();
    } finally {
      await page.getByLabel('Language').selectOption('es');
    }
    await note.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhook', exact: true }).waitFor();
    expect(page.url()).toBe(appUrl('globex', '/app/webhook'));

    // On the webhook page, the form to set the URL is the page itself: the note only says what happened.
    await page.getByLabel('Clave').fill(globexClave);
    eventId = await replayFromPage();
    expect(await note.textContent()).toBe(noUrl(eventId));
  });

  it('when more received documents wait than one page holds, then "load more" shows the rest and one of them is answered in place', async () => {
    // 51 more unanswered documents: the first page (50, unanswered first) cannot hold them all.
    const supplied = await supplyGlobex(
      Array.from({ length: 51 }, (_, i) => 100 + i),
      false,
    );
    await page.goto(appUrl('globex', '/app/recibidos'));
    const cards = page.getByRole('article');
    await cards.first().waitFor();
    expect(await cards.count()).toBe(50);
    const firstPage = new Set(
      await cards.evaluateAll((els) => els.map((el) => el.getAttribute('aria-label'))),
    );
    await page.getByRole('button', { name: 'Cargar más' }).click();
    // The 51 supplied, the one accepted and the one rejected above: the server's second page is the last.
    await page.getByRole('article', { name: receivedClave }).waitFor();
    expect(await cards.count()).toBe(53);
    expect(await page.getByRole('button', { name: 'Cargar más' }).count()).toBe(0);
    const shown = await cards.evaluateAll((els) => els.map((el) => el.getAttribute('aria-label')));
    expect(shown.filter((c) => supplied.includes(c ?? ''))).toHaveLength(51);
    const [last] = supplied.filter((c) => !firstPage.has(c));
    expect(last).toBeDefined();
    const card = page.getByRole('article', { name: last! });
    await card.getByLabel('Número de referencia').fill('3');
    await card.getByLabel(/Condición del IVA/).selectOption('01');
    await card.getByRole('button', { name: 'Aceptar' }).click();
    await card.getByText('Respondiendo').or(card.getByText('Respondido')).first().waitFor();
    expect(await card.getByRole('alert').allTextContents()).toEqual([]);
    // Shown in place: the pages loaded stay loaded.
    expect(await cards.count()).toBe(53);
    await shot('07e-recibidos-segunda-pagina');
  }, 300_000);

  it('when globex accepts a document with tax, then the form asks for the VAT condition, and for the creditable VAT with condition 02, before sending', async () => {
    await page.goto(appUrl('globex', '/app/recibidos'));
    const pending = page.getByRole('article').filter({ has: page.getByRole('button', { name: 'Aceptar' }) });
    await pending.first().waitFor();
    const card = page.getByRole('article', { name: (await pending.first().getAttribute('aria-label'))! });
    const answers: unknown[] = [];
    const seen = (req: { url(): string; postData(): string | null }) => {
      if (req.url().endsWith('/respuesta')) answers.push(JSON.parse(req.postData() ?? 'null'));
    };
    page.on('request', seen);
    try {
      await card.getByLabel('Número de referencia').fill('5');
      await card.getByRole('button', { name: 'Aceptar' }).click();
      await card.getByRole('alert').filter({ hasText: 'Elija la condición del IVA' }).waitFor();
      const condition = card.getByLabel(/Condición del IVA/);
      expect(await condition.evaluate((el) => el === document.activeElement)).toBe(true);
      await condition.selectOption('02');
      await card.getByRole('button', { name: 'Aceptar' }).click();
      await card.getByRole('alert').filter({ hasText: 'Escriba el IVA acreditable' }).waitFor();
      expect(answers).toEqual([]);
      // The supplier's invoice has 1300.00000 of tax: half of it is a partial credit.
      await card.getByLabel('IVA acreditable (condición 02 o 05)').fill('650.00');
      await card.getByRole('button', { name: 'Aceptar' }).click();
      await card.getByText('Respondiendo').or(card.getByText('Respondido')).first().waitFor();
      expect(await card.getByRole('alert').allTextContents()).toEqual([]);
      expect(answers).toEqual([
        { mensaje: 1, numeroReferencia: 5, condicionImpuesto: '02', montoTotalImpuestoAcreditar: '650.00' },
      ]);
      await shot('07f-aceptacion-credito-parcial');
    } finally {
      page.off('request', seen);
    }
  });

  it('when a document of the first page is answered and "load more" brings it again, then it is shown once, answered', async () => {
    // Two more unanswered documents: with the 49 left, the first page (50) is all unanswered, and the one
    // answered there moves to the answered ones, which the next page (after the first page's last) lists.
    await supplyGlobex([200, 201], false);
    await page.goto(appUrl('globex', '/app/recibidos'));
    const cards = page.getByRole('article');
    await cards.first().waitFor();
    expect(await cards.count()).toBe(50);
    const clave = (await cards.first().getAttribute('aria-label'))!;
    const card = page.getByRole('article', { name: clave });
    await card.getByLabel('Número de referencia').fill('6');
    await card.getByLabel('Motivo (obligatorio para rechazar)').fill('Duplicado');
    await card.getByRole('button', { name: 'Rechazar' }).click();
    await card.getByText('Respondiendo').or(card.getByText('Respondido')).first().waitFor();
    await page.getByRole('button', { name: 'Cargar más' }).click();
    await page.getByRole('button', { name: 'Cargar más' }).waitFor({ state: 'detached' });
    const shown = await cards.evaluateAll((els) => els.map((el) => el.getAttribute('aria-label')));
    // 2 + 51 + 2 supplied in all, each once.
    expect(shown).toHaveLength(55);
    expect(new Set(shown).size).toBe(55);
    expect(shown.indexOf(clave)).toBe(0);
    expect(await card.getByRole('button', { name: 'Rechazar' }).count()).toBe(0);
  });

  it('when Hacienda refused the answer sent, then the card shows that answer and says the document is still unanswered', async () => {
    // A supplier's invoice Hacienda rejected (an activity its registry does not list), uploaded without
    // Hacienda's answer: Hacienda refuses an answer to it (-605). Its verdict may wait behind the ~50
    // documents the "load more" tests sent without waiting, so the wait is long.
    const [clave] = (await supplyGlobex([300], true, { codigoActividad: '4711.0' }, 240_000)) as [string];
    await globex.login();
    const sent = await globex.api<{ data: { consecutivo: string } }>(
      'POST',
      `/api/recepcion/documentos/${clave}/respuesta`,
      { mensaje: 1, numeroReferencia: 9, condicionImpuesto: '01' },
    );
    expect(sent.status).toBe(202);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const r = await globex.api<{ data: { estado: string; respuesta: { estado: string } | null } }>(
        'GET',
        `/api/recepcion/documentos/${clave}`,
      );
      if (r.body.data.estado === 'pendiente' && r.body.data.respuesta?.estado === 'rechazado') break;
      if (Date.now() > deadline) throw new Error(`the answer was not refused: ${JSON.stringify(r.body)}`);
      await new Promise((done) => setTimeout(done, 200));
    }
    await page.goto(appUrl('globex', '/app/recibidos'));
    const card = page.getByRole('article', { name: clave });
    const more = page.getByRole('button', { name: 'Cargar más' });
    await page.getByRole('article').first().waitFor();
    while ((await card.count()) === 0 && (await more.count()) > 0) {
      await more.click();
      await card.or(more).first().waitFor();
    }
    const text = await card.locator('.answer-sent').textContent();
    expect(text).toContain(`Respuesta: Aceptación ${sent.body.data.consecutivo}`);
    expect(text).toContain('Rechazado');
    expect(text).toContain('Hacienda rechazó esa respuesta: el documento sigue sin responder.');
    // Pending again: the form is back for another answer.
    expect(await card.getByRole('button', { name: 'Aceptar' }).count()).toBe(1);
    await shot('07g-respuesta-rechazada');
  }, 420_000);

  it.each([
    ['its token passed its expiry (8 h later)', 'expired'],
    ['its cookie is gone', 'cookie'],
  ])(
    'when the session ends while the page is open (%s), then the page goes back to the sign-in form saying so, and signing in returns to the same page',
    async (_, how) => {
      // The page's own first call (its list) must have answered before the session ends: were it still
      // under way, that call would be the one to find the session gone, and the link clicked below would
      // already be off the page.
      const listed = page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/api/documentos' && r.request().method() === 'GET',
      );
      const signIn = page.getByLabel('Contraseña');
      const nav = page.getByRole('navigation').getByRole('link', { name: 'Emisores' });
      await openSignedIn('acme', '/app/documentos', PASSWORD, nav);
      expect((await listed).status()).toBe(200);
      const EIGHT_HOURS_AND_A_MINUTE = 8 * 3600 + 60;
      if (how === 'expired') stack.advanceTenantClock(EIGHT_HOURS_AND_A_MINUTE);
      else await context.clearCookies({ domain: 'acme.localhost' });
      try {
        await nav.click();
        await signIn.waitFor();
        await page.getByRole('alert').filter({ hasText: 'Su sesión expiró' }).waitFor();
        expect(await page.getByRole('navigation').count()).toBe(0);
        await shot(`13-sesion-terminada-${how}`);
      } finally {
        if (how === 'expired') stack.advanceTenantClock(-EIGHT_HOURS_AND_A_MINUTE);
      }
      await page.getByLabel('Idioma').selectOption('en');
      await page.getByRole('alert').filter({ hasText: 'Your session expired' }).waitFor();
      await page.getByLabel('Language').selectOption('es');
      await signIn.fill(PASSWORD);
      await page.getByRole('button', { name: 'Ingresar' }).click();
      await page.getByRole('heading', { name: 'Emisores', exact: true }).waitFor();
      expect(page.url()).toBe(appUrl('acme', '/app/emisores'));
      expect(await page.getByRole('alert').filter({ hasText: 'Su sesión expiró' }).count()).toBe(0);
    },
  );

  it('when the tenant signs out, then the cookie is gone and its token is revoked at the auth-server', async () => {
    const token = (await context.cookies(appUrl('acme')))[0]!.value;
    await page.goto(appUrl('acme', '/app/documentos'));
    await page.getByRole('button', { name: 'Salir' }).click();
    await page.getByRole('button', { name: 'Ingresar' }).waitFor();
    expect(await context.cookies(appUrl('acme'))).toEqual([]);
    // The tenant-api learns of the revocation from its next poll of the auth-server's list.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await tenantFetch(`${stack.tenantUrl('acme')}/api/documentos`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (r.status === 401) {
        expect(((await r.json()) as { message: string }).message).toBe('token has been revoked');
        break;
      }
      if (Date.now() > deadline) throw new Error(`the signed-out token still answers ${r.status}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  });

  it('when the auth-server is down at sign-out, then the sign-in page says the session is still valid and until when', async () => {
    const signOut = page.getByRole('button', { name: 'Salir' });
    await openSignedIn('globex', '/app/documentos', 'globex-dashboard-password-1', signOut);
    const token = (await context.cookies(appUrl('globex')))[0]!.value;
    const expira = await page.evaluate(async () => {
      const { data } = (await (await fetch('/app/session')).json()) as { data: { expira: string } };
      return data.expira;
    });
    const until = crTime(expira, 'es-CR');
    await stack.whileAuthServerDown(async () => {
      await signOut.click();
      await page.getByRole('button', { name: 'Ingresar' }).waitFor();
      await page.getByRole('alert').filter({ hasText: 'servidor no pudo cerrar la sesión' }).waitFor();
    });
    const notice = await page.getByRole('alert').filter({ hasText: 'sigue válida hasta' }).textContent();
    expect(notice).toBe(
      `Salió de este navegador, pero el servidor no pudo cerrar la sesión: sigue válida hasta ${until}`,
    );
    await shot('12-salida-sin-revocar');
    expect(await context.cookies(appUrl('globex'))).toEqual([]);
    // What the notice says: the token was not revoked and still works until its exp.
    const r = await tenantFetch(`${stack.tenantUrl('globex')}/api/documentos`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(r.status).toBe(200);
  });
});
