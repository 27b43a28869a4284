// cr: the command line of the Costa Rica e-invoicing platform. Global options may appear anywhere; the
// first word picks the command. Results go to stdout (human or --json), progress and errors to stderr,
// and the exit code says what happened (exit-codes.ts).
import { AuthenticationError, CrEinvoiceError, TokenExpiredError } from '@cr-einvoice/sdk';
import { login, logout } from './commands/login';
import { correo } from './commands/correo';
import { consultar, descargar, enviar } from './commands/documents';
import { emisor } from './commands/emisor';
import { cabys, contribuyente, exoneracion } from './commands/lookups';
import { webhook } from './commands/webhook';
import { Context, type GlobalOptions, type Io } from './context';
import { costaRicaTime } from './costa-rica-time';
import { EXIT, UsageError, exitCodeOf } from './exit-codes';
import { helpText } from './help';
import { pickLang } from './i18n';

type Command = (ctx: Context, args: string[]) => Promise<number | undefined> | Promise<void>;

const COMMANDS: Record<string, Command> = {
  login,
  logout,
  emisor,
  enviar,
  consultar,
  descargar,
  cabys,
  exoneracion,
  contribuyente,
  webhook,
  correo,
};

interface Split {
  options: GlobalOptions;
  help: boolean;
  rest: string[];
}

/** Takes the global options out of argv, wherever they are. */
export function splitGlobal(argv: string[], env: NodeJS.ProcessEnv): Split {
  const rest: string[] = [];
  let json = false;
  let help = false;
  let lang: string | undefined;
  let authUrl: string | undefined;
  let tenantUrl: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [name, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${name} needs a value`);
      return v;
    };
    if (name === '--json') json = true;
    else if (name === '--help' || name === '-h') help = true;
    else if (name === '--lang') lang = value();
    else if (name === '--auth-url') authUrl = value();
    else if (name === '--tenant-url') tenantUrl = value();
    else rest.push(a);
  }
  if (lang !== undefined && lang !== 'es' && lang !== 'en') throw new UsageError('--lang must be es or en');
  return { options: { json, lang: pickLang(lang, env), authUrl, tenantUrl }, help, rest };
}

function report(ctx: Context, err: unknown, code: number): void {
  const { t } = ctx;
  if (ctx.options.json) {
    const body =
      err instanceof CrEinvoiceError
        ? err.toJSON()
        : {
            error: err instanceof UsageError ? 'usage' : 'failure',
            message: (err as Error).message ?? String(err),
          };
    ctx.io.stderr(`${JSON.stringify({ ...body, exitCode: code })}\n`);
    return;
  }
  const lines: string[] = [];
  if (err instanceof UsageError) lines.push(`cr: ${err.message}`);
  else if (err instanceof TokenExpiredError)
    lines.push(t('sessionExpired', { exp: ctx.session.exp ? costaRicaTime(ctx.session.exp * 1000) : '?' }));
  else if (err instanceof AuthenticationError && err.status === undefined) lines.push(t('noSession'));
  else if (err instanceof AuthenticationError && err.error !== 'invalid_credentials')
    lines.push(t('sessionRefused'), t('error', { code: err.error, message: err.message }));
  else if (err instanceof CrEinvoiceError) {
    lines.push(t('error', { code: err.error, message: err.message }));
    for (const d of err.details ?? []) lines.push(t('field', { path: d.path, reason: d.reason }));
    if (err.requestId) lines.push(t('requestId', { id: err.requestId }));
  } else lines.push(`cr: ${(err as Error)?.stack ?? String(err)}`);
  ctx.io.stderr(`${lines.join('\n')}\n`);
}

export async function run(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let split: Split;
  try {
    split = splitGlobal(argv, env);
  } catch (err) {
    io.stderr(`cr: ${(err as Error).message}\n`);
    return EXIT.usage;
  }
  const ctx = new Context(split.options, io, env);
  const [name, ...args] = split.rest;
  if (split.help || !name || name === 'help') {
    const topic = name === 'help' ? args[0] : name;
    io.stdout(helpText(split.options.lang, topic));
    return name || split.help ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`${ctx.t('unknownCommand', { cmd: name })}\n`);
    return EXIT.usage;
  }
  try {
    return (await command(ctx, args)) ?? EXIT.ok;
  } catch (err) {
    const code = exitCodeOf(err);
    report(ctx, err, code);
    return code;
  }
}

if (require.main === module) {
  // `cr … | head` closes the pipe early: that is the reader's choice, not a failure.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  const io: Io = {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stderrIsTty: Boolean(process.stderr.isTTY),
  };
  run(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`cr: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = EXIT.failure;
    },
  );
}
