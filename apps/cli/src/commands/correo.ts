// cr correo configurar | consultar | reenviar: the SMTP server that e-mails accepted documents to their
// receptors (the tenant's own, or the platform's), and sending a document's e-mail again.
import { parse, positional, str } from '../args';
import type { Context } from '../context';
import { UsageError } from '../exit-codes';
import { fields } from './lookups';

const CLAVE = /^\d{50}$/;

const CONFIGURE_OPTIONS = {
  host: { type: 'string' },
  puerto: { type: 'string' },
  remitente: { type: 'string' },
  'nombre-remitente': { type: 'string' },
  usuario: { type: 'string' },
  password: { type: 'string' },
  secure: { type: 'boolean' },
  starttls: { type: 'boolean' },
  'sin-tls': { type: 'boolean' },
  predeterminado: { type: 'boolean' },
} as const;

/** The request body of `configurar`: the options, the password from --password or CR_SMTP_PASSWORD. */
function configuration(ctx: Context, args: string[]): Record<string, unknown> {
  const parsed = parse(args, CONFIGURE_OPTIONS);
  if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument: ${parsed.positionals[0]}`);
  const v = parsed.values;
  if (v.predeterminado) {
    const others = Object.keys(v).filter((k) => k !== 'predeterminado');
    if (others.length > 0) throw new UsageError(`--predeterminado goes alone (not with --${others[0]})`);
    return { predeterminado: true };
  }
  const host = str(parsed, 'host');
  const puerto = str(parsed, 'puerto');
  const remitente = str(parsed, 'remitente');
  if (!host || !puerto || !remitente)
    throw new UsageError('--host, --puerto and --remitente are required (or --predeterminado)');
  if (!/^\d{1,5}$/.test(puerto) || Number(puerto) < 1 || Number(puerto) > 65535)
    throw new UsageError('--puerto must be 1-65535');
  if ([v.secure, v.starttls, v['sin-tls']].filter(Boolean).length > 1)
    throw new UsageError('choose one of --secure, --starttls, --sin-tls');
  const password = str(parsed, 'password') ?? ctx.env.CR_SMTP_PASSWORD;
  const usuario = str(parsed, 'usuario');
  if (password !== undefined && usuario === undefined)
    throw new UsageError('--usuario is required with a password');
  // The service refuses it too (400): credentials never travel without TLS.
  if (v['sin-tls'] && password !== undefined)
    throw new UsageError(
      '--sin-tls goes without a password (--password or CR_SMTP_PASSWORD): credentials are never sent without TLS',
    );
  const nombre = str(parsed, 'nombre-remitente');
  return {
    host,
    port: Number(puerto),
    ...(v.secure ? { secure: true } : v.starttls ? { secure: false } : {}),
    ...(v['sin-tls'] ? { secure: false, requiereTls: false } : {}),
    ...(usuario !== undefined ? { usuario } : {}),
    ...(password !== undefined ? { password } : {}),
    remitente,
    ...(nombre !== undefined ? { nombreRemitente: nombre } : {}),
  };
}

interface MailSettings {
  origen: 'tenant' | 'plataforma';
  host: string | null;
  port: number | null;
  secure: boolean | null;
  requiereTls: boolean | null;
  remitente: string | null;
}

function describeSettings(ctx: Context, s: MailSettings): string[] {
  if (s.origen === 'plataforma') return [ctx.t('mailPlatform')];
  return [
    ctx.t('mailTenant', {
      server: `${s.host}:${s.port}`,
      tls: s.secure ? 'TLS' : s.requiereTls === false ? ctx.t('mailTlsOptional') : 'STARTTLS',
      from: s.remitente ?? '',
    }),
  ];
}

export async function correo(ctx: Context, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'configurar': {
      const body = configuration(ctx, rest);
      const answer = await ctx.client().entrega.configurarCorreo(body as never);
      ctx.result(answer.data, () => [
        ...describeSettings(ctx, answer.data),
        ...(answer.data.tienePassword ? [ctx.t('mailPasswordSealed')] : []),
      ]);
      return;
    }
    case 'consultar': {
      const parsed = parse(rest, {});
      if (parsed.positionals.length > 0)
        throw new UsageError(`unexpected argument: ${parsed.positionals[0]}`);
      const answer = await ctx.client().entrega.consultarCorreo();
      ctx.result(answer.data, () => [...describeSettings(ctx, answer.data), ...fields(answer.data)]);
      return;
    }
    case 'reenviar': {
      const parsed = parse(rest, { destinatario: { type: 'string', multiple: true } });
      const clave = positional(parsed, 0, 'clave');
      if (!CLAVE.test(clave)) throw new UsageError(`<clave> must be 50 digits: ${clave}`);
      const destinatarios = parsed.values.destinatario as string[] | undefined;
      const answer = await ctx.client().entrega.reenviarCorreo(clave, destinatarios);
      const result = { clave, envioId: answer.data.envioId, message: answer.message };
      ctx.result(result, () => [ctx.t('mailQueued', { clave, id: answer.data.envioId })]);
      return;
    }
    default:
      throw new UsageError('cr correo configurar | consultar | reenviar (cr correo --help)');
  }
}
