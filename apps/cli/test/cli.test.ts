// The built CLI (dist/cr.cjs) as a child process against the live stack (@cr/stack): its output, human
// and JSON, and its exit codes, including a wrong PIN, an issuer update without its key, an expired token,
// a service that is down, and a logout after the session has ended.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SmtpCatcher } from '@cr/mail-catcher';
import { type Stack, invoice, startStack } from '@cr/stack';

jest.setTimeout(180_000);

const CLI = join(__dirname, '..', 'dist', 'cr.cjs');
const PASSWORD = 'acme-password-123';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let stack: Stack;
let dir: string;
let env: NodeJS.ProcessEnv;

/** Runs the CLI; `input`, when given, is its whole stdin (`''`: as from /dev/null). */
function cr(args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...env, ...extraEnv }, cwd: dir },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

beforeAll(async () => {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: the test script builds it (pnpm --filter @cr/cli test)`);
  stack = await startStack();
  await stack.createTenant('acme', PASSWORD);
  dir = mkdtempSync(join(tmpdir(), 'cr-cli-'));
  env = {
    PATH: process.env.PATH,
    HOME: dir,
    CR_CONFIG_DIR: join(dir, 'config'),
    CR_AUTH_URL: stack.authUrl,
    CR_TENANT_URL: stack.tenantUrl('acme'),
    LANG: 'es_CR.UTF-8',
  };
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('help and usage', () => {
  it('when asked for help, then it answers in Spanish by default and in English with --lang en', async () => {
    const es = await cr(['--help']);
    expect(es.code).toBe(0);
    expect(es.stdout).toContain('Códigos de salida');
    const en = await cr(['--help', '--lang', 'en']);
    expect(en.stdout).toContain('Exit codes');
    const enLocale = await cr(['enviar', '--help'], { LANG: 'en_US.UTF-8' });
    expect(enLocale.stdout).toContain('waits for the verdict');
  });

  it('when the command is unknown or an option is wrong, then exit 2', async () => {
    expect((await cr(['facturar'])).code).toBe(2);
    const bad = await cr(['consultar', '123']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<clave> must be 50 digits');
  });

  it('when not logged in, then a command says so and exits 3', async () => {
    const r = await cr(['consultar', '5'.repeat(50)]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('cr login');
  });

  it('when not logged in, then logout says so and exits 3 like every other command', async () => {
    const r = await cr(['logout']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('No hay sesión: ejecute `cr login`');
    const json = await cr(['logout', '--json']);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'unauthorized', exitCode: 3 });
  });

  it('when login gets no password (stdin empty), then it says the password is missing and exits 2', async () => {
    const r = await cr(['login', '--base', 'acme'], {}, '');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Falta la contraseña');
    expect(r.stderr).not.toContain('No hay sesión');
  });

  it('when the stored session has no auth-server URL and none is given, then logout is a usage error, not a crash', async () => {
    const config = join(dir, 'config-sin-url');
    mkdirSync(config, { recursive: true });
    writeFileSync(
      join(config, 'session.json'),
      JSON.stringify({ base: 'acme', token: 'x.y.z', exp: 4102444800 }),
    );
    const r = await cr(['logout'], { CR_CONFIG_DIR: config, CR_AUTH_URL: undefined });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Falta la URL del auth-server');
    expect(r.stderr).not.toContain('TypeError');
  });
});

describe('webhook escuchar with CR_WEBHOOK_SECRET', () => {
  it('when CR_WEBHOOK_SECRET is "OLD, NEW" (a space after the comma), then a delivery signed by NEW verifies', async () => {
    const old = `whsec_${randomBytes(24).toString('base64')}`;
    const neu = `whsec_${randomBytes(24).toString('base64')}`;
    const listener = spawn(process.execPath, [CLI, 'webhook', 'escuchar', '--puerto', '0', '--json'], {
      env: { ...env, CR_WEBHOOK_SECRET: `${old}, ${neu},` },
      cwd: dir,
    });
    const lines: string[] = [];
    collectLines(listener, lines);
    try {
      await waitUntil(() => lines.some((l) => l.includes('"listening"')));
      const url = (JSON.parse(lines[0]!) as { listening: string }).listening;
      const event = {
        folioId: '5'.repeat(50),
        folioType: 'INVOICE',
        folioDetails: [],
        clave: '5'.repeat(50),
        estado: 'aceptado',
      };
      expect(await deliver(url, neu, 'msg_nuevo1', event)).toBe(204);
      expect(await deliver(url, old, 'msg_viejo1', event)).toBe(204);
      await waitUntil(() => lines.length >= 3);
      expect(lines.slice(1).map((l) => JSON.parse(l) as unknown)).toEqual([
        expect.objectContaining({ verified: true, id: 'msg_nuevo1' }),
        expect.objectContaining({ verified: true, id: 'msg_viejo1' }),
      ]);
    } finally {
      listener.kill('SIGTERM');
    }
  });
});

describe('webhook reenviar: a replay with nowhere to go', () => {
  // globex logs in by itself (CR_BASE/CR_PASSWORD, a session of its own) and never sets a URL at first.
  const GLOBEX_PASSWORD = 'globex-password-123';
  let globexEnv: NodeJS.ProcessEnv;
  let clave: string;
  let gone: Server | undefined;

  beforeAll(async () => {
    await stack.createTenant('globex', GLOBEX_PASSWORD);
    globexEnv = {
      CR_CONFIG_DIR: join(dir, 'config-globex'),
      CR_BASE: 'globex',
      CR_PASSWORD: GLOBEX_PASSWORD,
      CR_TENANT_URL: stack.tenantUrl('globex'),
    };
    const registered = await cr(
      ['emisor', 'registrar', file('emisor-globex.json', stack.demoEmisor())],
      globexEnv,
    );
    expect(registered.code).toBe(0);
    // A numeroReferencia acme's flow does not use: the sandbox would take the same clave for a repeat.
    const sent = await cr(['enviar', file('factura-globex.json', invoice(9)), '--esperar'], globexEnv);
    expect(sent.stdout).toContain('Veredicto de Hacienda: aceptado');
    clave = /Clave: (506\d{47})/.exec(sent.stdout)![1]!;
  }, 180_000);

  afterAll(async () => {
    await new Promise((resolve) => (gone ? gone.close(resolve) : resolve(undefined)));
  });

  it('when no webhook URL is configured, then the event is said queued, a warning says nothing will be delivered and how to set a URL, and the exit is 0', async () => {
    const r = await cr(['webhook', 'reenviar', clave], globexEnv);

    expect(r.code).toBe(0);
    const id = /Evento (msg_[0-9a-f]{32}) /.exec(r.stdout)?.[1];
    expect(r.stdout).toBe(
      `Evento ${id} de ${clave} en cola; su entrega aparece en \`cr consultar <clave>\`.\n` +
        'Aviso: no hay una URL de webhook configurada: no se entregará nada. Configure una con `cr webhook configurar <url>`.\n',
    );
    const en = await cr(['webhook', 'reenviar', clave, '--lang', 'en'], globexEnv);
    expect(en.code).toBe(0);
    expect(en.stdout).toContain(
      'Warning: no webhook URL is configured: nothing will be delivered. Set one with `cr webhook configurar <url>`.',
    );
    const json = await cr(['webhook', 'reenviar', clave, '--json'], globexEnv);
    expect(JSON.parse(json.stdout)).toMatchObject({ data: { webhook: 'sin-url' } });
  });

  it('when the receiver answered 410 Gone, then a replay warns that the webhook is deactivated, since when and why, and how to reactivate it, and the exit is 0', async () => {
    gone = createHttpServer((_req, res) => res.writeHead(410).end());
    await new Promise<void>((resolve) => gone!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/hook`;
    expect((await cr(['webhook', 'configurar', url], globexEnv)).code).toBe(0);
    expect((await cr(['webhook', 'reenviar', clave], globexEnv)).code).toBe(0);
    let hook: { activo: boolean; desactivadoEn?: string } = { activo: true };
    await waitUntilAsync(async () => {
      hook = JSON.parse((await cr(['webhook', 'consultar', '--json'], globexEnv)).stdout);
      return !hook.activo;
    });

    const r = await cr(['webhook', 'reenviar', clave], globexEnv);

    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[1]).toBe(
      `Aviso: el webhook está desactivado desde el ${hook.desactivadoEn} (motivo: receiver answered 410 Gone): no se entregará nada. Guarde la URL de nuevo con \`cr webhook configurar <url>\` para reactivarlo (recibirá un secreto nuevo).`,
    );
    const en = await cr(['webhook', 'reenviar', clave, '--lang', 'en'], globexEnv);
    expect(en.stdout).toMatch(/^Event msg_[0-9a-f]{32} of \d{50} queued; /);
    expect(en.stdout).toContain(
      `Warning: the webhook is deactivated since ${hook.desactivadoEn} (reason: receiver answered 410 Gone): nothing will be delivered. Save the URL again with \`cr webhook configurar <url>\` to reactivate it (you get a new secret).`,
    );
  });
});

describe('the whole flow', () => {
  let clave: string;
  let rejectedClave: string;
  let listener: ChildProcess | undefined;
  const events: string[] = [];
  let smtp: SmtpCatcher | undefined;

  afterAll(async () => {
    listener?.kill('SIGTERM');
    await smtp?.stop();
  });

  it('when the password is wrong, then login exits 3 naming invalid_credentials', async () => {
    const r = await cr(['login', '--base', 'acme', '--password', 'wrong-password']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('invalid_credentials');
  });

  it('when login succeeds, then the token (never the password) is stored for the user only', async () => {
    const r = await cr(['login', '--base', 'acme', '--password', PASSWORD]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Sesión iniciada como acme');
    const stored = readFileSync(join(dir, 'config', 'session.json'), 'utf8');
    expect(stored).toContain('"token"');
    expect(stored).not.toContain(PASSWORD);
  });

  it('when CR_BASE and CR_PASSWORD log in, then the session stores the URLs and a later logout revokes the token', async () => {
    const config = join(dir, 'config-env');
    const r = await cr(['correo', 'consultar'], {
      CR_CONFIG_DIR: config,
      CR_BASE: 'acme',
      CR_PASSWORD: PASSWORD,
    });
    expect(r.code).toBe(0);
    const stored = JSON.parse(readFileSync(join(config, 'session.json'), 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({
      authUrl: stack.authUrl,
      tenantUrl: stack.tenantUrl('acme'),
      base: 'acme',
    });
    // Only the stored session now: no URL or password in the environment.
    const out = await cr(['logout'], {
      CR_CONFIG_DIR: config,
      CR_AUTH_URL: undefined,
      CR_TENANT_URL: undefined,
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Sesión cerrada');
  });

  it('when the PIN is wrong, then registering the issuer exits 4 and names the PIN', async () => {
    const { certificadoHacienda: _c, pinCertificado: _p, ...emisor } = stack.demoEmisor();
    const p12 = file('llave.p12', '');
    writeFileSync(p12, Buffer.from(stack.demoEmisor().certificadoHacienda, 'base64'));
    const r = await cr(['emisor', 'registrar', file('emisor.json', emisor), '--p12', p12, '--pin', '0000x']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/pinCertificado/);
  });

  it('when --pin comes without --p12, or CR_P12_PIN is the only PIN, then usage errors name both', async () => {
    const { certificadoHacienda: _c, pinCertificado: _p, ...emisor } = stack.demoEmisor();
    const json = file('emisor.json', emisor);
    const pinAlone = await cr(['emisor', 'actualizar', json, '--pin', '1234']);
    expect(pinAlone.code).toBe(2);
    expect(pinAlone.stderr).toContain('--p12 and --pin (or CR_P12_PIN) go together');
    // The variable is read only with --p12: set for the shell, it does not make every update carry a PIN.
    const noKey = await cr(['emisor', 'registrar', json], { CR_P12_PIN: '1234' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--p12 <file> and --pin <pin> (or CR_P12_PIN) are required');
  });

  it('when the issuer is registered with its .p12, the PIN from CR_P12_PIN and the password from CR_CLAVE_HACIENDA, then exit 0 with no secret on the command line', async () => {
    const {
      certificadoHacienda: _c,
      pinCertificado: _p,
      usuarioHacienda,
      claveHacienda,
      ...emisor
    } = stack.demoEmisor();
    const r = await cr(
      [
        'emisor',
        'registrar',
        file('emisor.json', emisor),
        '--p12',
        join(dir, 'llave.p12'),
        '--usuario',
        usuarioHacienda,
      ],
      {
        CR_P12_PIN: stack.demo.pin,
        // A generated password may start with '-': from the environment it is never taken for an option.
        CR_CLAVE_HACIENDA: Buffer.from(claveHacienda, 'base64').toString(),
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Emisor ${stack.demo.identificacion} registrado`);
  });

  it('when `emisor actualizar` comes without the key, then exit 2 before any request; with it, the issuer is updated', async () => {
    // An update replaces the whole registration (spec endpoint 5: the body of endpoint 4), key included.
    const { certificadoHacienda: _c, pinCertificado: _p, ...emisor } = stack.demoEmisor();
    const json = file('emisor.json', emisor);
    const noKey = await cr(['emisor', 'actualizar', json]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--p12 <file> and --pin <pin> (or CR_P12_PIN) are required');
    const withKey = await cr(['emisor', 'actualizar', json, '--p12', join(dir, 'llave.p12')], {
      CR_P12_PIN: stack.demo.pin,
    });
    expect(withKey.stderr).toBe('');
    expect(withKey.code).toBe(0);
    expect(withKey.stdout).toContain(`Emisor ${stack.demo.identificacion} actualizado`);
    // As for registrar, the key may be in the JSON already.
    const whole = await cr(['emisor', 'actualizar', file('emisor-completo.json', stack.demoEmisor())]);
    expect(whole.code).toBe(0);
  });

  it('when `webhook escuchar --configurar` runs, then it listens and points the tenant’s webhook at itself', async () => {
    listener = spawn(
      process.execPath,
      [CLI, 'webhook', 'escuchar', '--puerto', '0', '--configurar', '--json'],
      {
        env,
        cwd: dir,
      },
    );
    collectLines(listener, events);
    await waitUntil(() => events.some((l) => l.includes('"listening"')));
    const url = (JSON.parse(events.find((l) => l.includes('"listening"'))!) as { listening: string })
      .listening;
    const hook = await cr(['webhook', 'consultar', '--json']);
    expect(JSON.parse(hook.stdout)).toMatchObject({ url });
  });

  it('when an invoice is sent with --esperar, then progress goes to stderr and the verdict to stdout', async () => {
    const r = await cr(['enviar', file('factura.json', invoice(1)), '--esperar']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Documento enviado\. Clave: (506\d{47})/);
    clave = /Clave: (506\d{47})/.exec(r.stdout)![1]!;
    expect(r.stdout).toContain('Veredicto de Hacienda: aceptado');
    expect(r.stderr).toContain('Esperando el veredicto de Hacienda');
  });

  it('when the listener receives the event, then it prints it as verified', async () => {
    await waitUntil(() => events.some((l) => l.includes(clave)));
    const line = JSON.parse(events.find((l) => l.includes(clave))!) as Record<string, unknown>;
    expect(line).toMatchObject({ verified: true, event: { clave, estado: 'aceptado' } });
  });

  it('when the document is consulted with --json, then stdout is its JSON', async () => {
    const r = await cr(['consultar', clave, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ clave, estado: 'aceptado' });
  });

  it('when the XML and Hacienda’s answer are downloaded, then the files hold them', async () => {
    expect((await cr(['descargar', clave, '--xml'])).code).toBe(0);
    expect(readFileSync(join(dir, `${clave}.xml`), 'utf8')).toContain('<FacturaElectronica');
    const r = await cr(['descargar', clave, '--respuesta', '--salida', 'respuesta.xml', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ file: 'respuesta.xml', kind: 'respuesta' });
    expect(readFileSync(join(dir, 'respuesta.xml'), 'utf8')).toContain('MensajeHacienda');
  });

  it('when the PDF is downloaded, then the file is the PDF the service renders', async () => {
    const r = await cr(['descargar', clave, '--pdf', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ file: `${clave}.pdf`, kind: 'pdf', clave });
    const pdf = readFileSync(join(dir, `${clave}.pdf`));
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.length).toBe(JSON.parse(r.stdout).bytes);
  });

  it('when `webhook escuchar` receives a document’s event and a received document’s deadline, then it prints each by its kind', async () => {
    // The service's deadline scan runs once a day, so that event is signed here, Standard Webhooks style,
    // with a second secret the listener holds; the document's event comes from the service (a replay).
    const own = `whsec_${randomBytes(24).toString('base64')}`;
    const human = spawn(
      process.execPath,
      [CLI, 'webhook', 'escuchar', '--puerto', '0', '--configurar', '--secreto', own],
      { env, cwd: dir },
    );
    const lines: string[] = [];
    collectLines(human, lines);
    try {
      await waitUntil(() => lines.some((l) => l.startsWith('Escuchando webhooks en')));
      const url = /en (http\S+) /.exec(lines[0]!)![1]!;
      const replayed = await cr(['webhook', 'reenviar', clave]);
      expect(replayed.code).toBe(0);
      // Queued, not sent: the line says so and names the event; no warning, the endpoint is active.
      expect(replayed.stdout).toMatch(
        new RegExp(
          `^Evento msg_[0-9a-f]{32} de ${clave} en cola; su entrega aparece en \`cr consultar <clave>\`\\.\\n$`,
        ),
      );
      const due = { ...deadlineEvent(), diasHabilesRestantes: 2 };
      const overdue = { ...deadlineEvent(), clave: '7'.repeat(50), diasHabilesRestantes: -1 };
      expect(await deliver(url, own, 'msg_plazo1', due)).toBe(204);
      expect(await deliver(url, own, 'msg_plazo2', overdue)).toBe(204);
      // A kind of event newer than this CLI still shows its type and clave.
      const newer = { type: 'recepcion.futuro', clave: '8'.repeat(50) };
      expect(await deliver(url, own, 'msg_nuevo', newer)).toBe(204);
      await waitUntil(() => lines.length >= 5);
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(` aceptado ${clave} \\(INVOICE, id msg_`)),
      );
      // When it arrived, in Costa Rica time.
      expect(lines).toContainEqual(
        expect.stringMatching(/^✓ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-06:00 aceptado /),
      );
      expect(lines).toContainEqual(
        expect.stringContaining(
          `recepcion.deadline ${due.clave}: responder a más tardar el 2026-12-11, quedan 2 días hábiles (proveedor Pixdea SA, receptor ${stack.demo.identificacion}, id msg_plazo1)`,
        ),
      );
      expect(lines).toContainEqual(
        expect.stringContaining(
          `recepcion.deadline ${overdue.clave}: el plazo venció el 2026-12-11, hace 1 días hábiles (proveedor Pixdea SA, receptor ${stack.demo.identificacion}, id msg_plazo2)`,
        ),
      );
      expect(lines).toContainEqual(expect.stringContaining(`recepcion.futuro ${newer.clave} (id msg_nuevo)`));
      expect(lines.join('\n')).not.toContain('undefined');
    } finally {
      human.kill('SIGTERM');
    }
  });

  it('when Hacienda rejects the document, then --esperar prints the reason and exits 7', async () => {
    const forced = await fetch(`${stack.sandboxUrl}/sandbox/veredicto`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'reject', code: -99, text: 'Rechazo forzado de prueba' }),
    });
    expect(forced.status).toBe(201);
    const r = await cr(['enviar', file('rechazada.json', invoice(3)), '--esperar']);
    expect(r.code).toBe(7);
    expect(r.stdout).toContain('Veredicto de Hacienda: rechazado');
    expect(r.stdout).toContain('Rechazo forzado de prueba');
    rejectedClave = /Clave: (506\d{47})/.exec(r.stdout)![1]!;
  });

  it('when no SMTP server of its own is set, then `correo consultar` names the platform’s', async () => {
    const r = await cr(['correo', 'consultar']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('lo envía el servidor SMTP de la plataforma');
    const json = await cr(['correo', 'consultar', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ origen: 'plataforma', tienePassword: false });
  });

  it('when `correo configurar` misses an option or mixes them, then exit 2 and nothing is sent', async () => {
    const missing = await cr(['correo', 'configurar', '--host', 'smtp.acme.cr', '--puerto', '587']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--remitente');
    const port = await cr([
      'correo',
      'configurar',
      '--host',
      'h',
      '--puerto',
      '99999',
      '--remitente',
      'a@b.cr',
    ]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--puerto must be 1-65535');
    const mixed = await cr(['correo', 'configurar', '--predeterminado', '--host', 'smtp.acme.cr']);
    expect(mixed.code).toBe(2);
    expect((await cr(['correo'])).code).toBe(2);
  });

  it('when the service refuses the SMTP settings, then exit 4 naming the field', async () => {
    const host = await cr([
      'correo',
      'configurar',
      '--host',
      'smtp acme',
      '--puerto',
      '587',
      '--remitente',
      'facturas@acme.cr',
    ]);
    expect(host.code).toBe(4);
    expect(host.stderr).toContain('host');
    const from = await cr([
      'correo',
      'configurar',
      '--host',
      'smtp.acme.cr',
      '--puerto',
      '587',
      '--remitente',
      'no-es-correo',
      '--json',
    ]);
    expect(from.code).toBe(4);
    expect(JSON.stringify(JSON.parse(from.stderr))).toContain('remitente');
  });

  it('when the tenant’s own SMTP server is configured, then the password is taken from CR_SMTP_PASSWORD and never shown', async () => {
    smtp = await new SmtpCatcher({ port: 0 }).start();
    const secret = 'smtp-Secreto-de-prueba-77';
    const r = await cr(
      [
        'correo',
        'configurar',
        '--host',
        '127.0.0.1',
        '--puerto',
        String(smtp.port),
        '--starttls',
        '--usuario',
        'facturas@acme.cr',
        '--remitente',
        'facturas@acme.cr',
        '--nombre-remitente',
        'Acme Facturación',
      ],
      { CR_SMTP_PASSWORD: secret },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `servidor SMTP del tenant 127.0.0.1:${smtp.port} (STARTTLS), remitente facturas@acme.cr`,
    );
    expect(r.stdout).toContain('guardada sellada');
    const json = await cr(['correo', 'consultar', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      origen: 'tenant',
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      requiereTls: true,
      usuario: 'facturas@acme.cr',
      tienePassword: true,
      remitente: 'facturas@acme.cr',
    });
    expect(r.stdout + json.stdout).not.toContain(secret);
  });

  it('when `--sin-tls` comes with a password or another TLS option, then exit 2 and nothing is sent', async () => {
    const base = ['correo', 'configurar', '--host', '127.0.0.1', '--puerto', '2525', '--sin-tls'];
    const withPassword = await cr([...base, '--usuario', 'u', '--remitente', 'facturas@acme.cr'], {
      CR_SMTP_PASSWORD: 'x',
    });
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('--sin-tls goes without a password');
    const mixed = await cr([...base, '--starttls', '--remitente', 'facturas@acme.cr']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('choose one of --secure, --starttls, --sin-tls');
    // The settings of the test before are still the ones in force.
    expect(JSON.parse((await cr(['correo', 'consultar', '--json'])).stdout)).toMatchObject({
      tienePassword: true,
      requiereTls: true,
    });
  });

  it('when an accepted document’s e-mail is resent to a destinatario, then it reaches the tenant’s server with the PDF and `consultar` lists it', async () => {
    // The test's catcher offers no STARTTLS: without credentials the tenant may let it go without TLS.
    const plain = await cr([
      'correo',
      'configurar',
      '--host',
      '127.0.0.1',
      '--puerto',
      String(smtp!.port),
      '--sin-tls',
      '--remitente',
      'facturas@acme.cr',
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('(STARTTLS solo si el servidor la ofrece)');
    const before = smtp!.messages.length;
    const r = await cr(['correo', 'reenviar', clave, '--destinatario', 'contabilidad@example.com', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { envioId } = JSON.parse(r.stdout) as { envioId: string };
    expect(JSON.parse(r.stdout)).toMatchObject({ clave, envioId: expect.any(String) });
    const [message] = (await smtp!.waitFor(before + 1, 60_000)).slice(before);
    expect(message!.envelope.to).toEqual(['contabilidad@example.com']);
    expect(message!.from).toContain('facturas@acme.cr');
    const pdf = message!.attachments.find((a) => a.contentType === 'application/pdf');
    expect(pdf?.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await waitUntilAsync(async () =>
      (await cr(['consultar', clave])).stdout.includes(`${envioId} → enviado`),
    );
    const shown = await cr(['consultar', clave]);
    expect(shown.stdout).toContain('Correos al receptor:');
    expect(shown.stdout).toContain(`reenvio ${envioId} → enviado (contabilidad@example.com)`);
  });

  it('when the e-mail of an unknown, rejected or malformed clave is resent, then exit 5, 4 and 2', async () => {
    const unknown = await cr(['correo', 'reenviar', '5'.repeat(50)]);
    expect(unknown.code).toBe(5);
    const rejected = await cr(['correo', 'reenviar', rejectedClave]);
    expect(rejected.code).toBe(4);
    expect(rejected.stderr).toContain('not accepted');
    const malformed = await cr(['correo', 'reenviar', '123']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('<clave> must be 50 digits');
  });

  it('when a webhook replay names a malformed clave, then exit 2 before any request, as for an e-mail resend', async () => {
    const malformed = await cr(['webhook', 'reenviar', '123']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('<clave> must be 50 digits: 123');
  });

  it('when `correo configurar --predeterminado` runs, then the platform’s server sends again', async () => {
    const r = await cr(['correo', 'configurar', '--predeterminado', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ origen: 'plataforma', host: null, tienePassword: false });
  });

  it('when CABYS is searched, then codes are listed', async () => {
    const r = await cr(['cabys', 'software']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d{13} /m);
  });

  it('when the document is refused (wrong amount), then exit 4 with the field', async () => {
    const bad = invoice(2) as { detalleServicio: Array<Record<string, unknown>> };
    bad.detalleServicio[0]!.montoTotal = '9999.00';
    const r = await cr(['enviar', file('mala.json', bad)]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('montoTotal');
  });

  it('when the token has expired, then a clear message and exit 3', async () => {
    stack.advanceTenantClock(9 * 3600);
    try {
      const r = await cr(['consultar', clave]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('cr login');
      expect(r.stderr).toMatch(/vencida o revocada/);
    } finally {
      stack.advanceTenantClock(-9 * 3600);
    }
  });

  it('when the service is down, then a clear message and exit 6', async () => {
    const port = await closedPort();
    const r = await cr(['consultar', clave], { CR_TENANT_URL: `http://acme.localhost:${port}` });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`cannot reach http://acme.localhost:${port}`);
    const json = await cr(['consultar', clave, '--json'], { CR_TENANT_URL: `http://acme.localhost:${port}` });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'connection_error', exitCode: 6 });
  });

  it('when logging out, then the token is revoked and forgotten', async () => {
    const r = await cr(['logout']);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'config', 'session.json'), 'utf8')).not.toContain('"token"');
    expect((await cr(['consultar', clave])).code).toBe(3);
  });

  it('when the session has expired, then logout forgets the token, says the session had already expired and exits 0', async () => {
    expect((await cr(['login', '--base', 'acme', '--password', PASSWORD])).code).toBe(0);
    ageSession(9 * 3600);
    const r = await cr(['logout']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('La sesión ya había vencido');
    // The instant in Costa Rica time, as the API writes fechaEmision; not UTC.
    expect(r.stdout).toMatch(/vencido \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-06:00\)/);
    expect(readFileSync(join(dir, 'config', 'session.json'), 'utf8')).not.toContain('"token"');
  });

  it('when the auth-server no longer accepts the token (its signing key retired), then logout forgets it and exits 0', async () => {
    expect((await cr(['login', '--base', 'acme', '--password', PASSWORD])).code).toBe(0);
    const { token } = storedSession();
    const { kid } = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };
    const retired = await fetch(`${stack.authUrl}/admin/keys/${kid}/retire`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminToken}` },
    });
    expect(retired.status).toBe(200);
    const r = await cr(['logout', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ loggedOut: true, alreadyExpired: true });
    expect(readFileSync(join(dir, 'config', 'session.json'), 'utf8')).not.toContain('"token"');
    const english = await cr(['logout', '--lang', 'en']);
    expect(english.code).toBe(3);
    expect(english.stderr).toContain('Not logged in');
  });
});

/** Appends each complete line the child prints on stdout to `lines`. */
function collectLines(child: ChildProcess, lines: string[]): void {
  let buffer = '';
  child.stdout!.on('data', (c: Buffer) => {
    buffer += c.toString();
    const complete = buffer.split('\n');
    buffer = complete.pop()!;
    lines.push(...complete.filter(Boolean));
  });
}

function storedSession(): { token: string; exp: number } {
  return JSON.parse(readFileSync(join(dir, 'config', 'session.json'), 'utf8')) as {
    token: string;
    exp: number;
  };
}

/**
 * The stored session as it is `seconds` later: the token's `exp` moved back by that much (its signature no
 * longer matches, which nothing checks: an expired token is never sent).
 */
function ageSession(seconds: number): void {
  const session = storedSession();
  const [header, payload, signature] = session.token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { exp: number };
  const exp = claims.exp - seconds;
  const aged = Buffer.from(JSON.stringify({ ...claims, exp })).toString('base64url');
  writeFileSync(
    join(dir, 'config', 'session.json'),
    JSON.stringify({ ...session, token: `${header}.${aged}.${signature}`, exp }),
  );
}

/** A `recepcion.deadline` body as the tenant-api's daily scan sends it (apps/tenant-api/src/recepcion/deadline-job.ts). */
function deadlineEvent() {
  return {
    type: 'recepcion.deadline',
    clave: '6'.repeat(50),
    receptor: String(stack.demo.identificacion),
    emisor: { tipo: '02', numero: '3101779527', nombre: 'Pixdea SA' },
    total: '11300.00000',
    vence: '2026-12-11',
    diasHabilesRestantes: 2,
  };
}

/** POSTs `event` signed the Standard Webhooks way (docs/webhooks.md) with `secret`; the answer's status. */
async function deliver(url: string, secret: string, id: string, event: unknown): Promise<number> {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `v1,${signature}`,
    },
    body,
  });
  return res.status;
}

async function waitUntil(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitUntilAsync(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}
