// cr emisor registrar | actualizar | consultar.
import { parse, positional, readBinaryFile, readJsonFile, str } from '../args';
import type { Context } from '../context';
import { UsageError } from '../exit-codes';

const WRITE_OPTIONS = {
  p12: { type: 'string' },
  pin: { type: 'string' },
  usuario: { type: 'string' },
  clave: { type: 'string' },
} as const;

/**
 * The issuer JSON plus the key and credentials given as options (the .p12 and password in base64). The PIN
 * and Hacienda's password may come from CR_P12_PIN (with --p12) and CR_CLAVE_HACIENDA (with --usuario)
 * instead, which keeps them out of the process list and shell history, as CR_SMTP_PASSWORD does. Both
 * registrar and actualizar send the whole registration (an update replaces the issuer, key included), so
 * both need the key: from --p12 and --pin, or already in the JSON.
 */
function registration(ctx: Context, args: string[]): Record<string, unknown> {
  const parsed = parse(args, WRITE_OPTIONS);
  const file = positional(parsed, 0, 'emisor.json');
  const body = readJsonFile(file);
  const p12 = str(parsed, 'p12');
  const pin = str(parsed, 'pin') ?? (p12 !== undefined ? ctx.env.CR_P12_PIN : undefined);
  if ((p12 === undefined) !== (pin === undefined))
    throw new UsageError('--p12 and --pin (or CR_P12_PIN) go together');
  if (!p12 && !(body.certificadoHacienda && body.pinCertificado))
    throw new UsageError(
      `--p12 <file> and --pin <pin> (or CR_P12_PIN) are required, unless ${file} holds certificadoHacienda and pinCertificado`,
    );
  if (p12) body.certificadoHacienda = readBinaryFile(p12).toString('base64');
  if (pin !== undefined) body.pinCertificado = pin;
  const usuario = str(parsed, 'usuario');
  const clave = str(parsed, 'clave') ?? (usuario ? ctx.env.CR_CLAVE_HACIENDA : undefined);
  if (usuario) body.usuarioHacienda = usuario;
  if (clave) body.claveHacienda = Buffer.from(clave).toString('base64');
  return body;
}

export async function emisor(ctx: Context, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const cr = () => ctx.client();
  switch (sub) {
    case 'registrar': {
      const body = registration(ctx, rest);
      const answer = await cr().emisores.register(body as never);
      ctx.result(answer, () => [
        ctx.t('emisorRegistered', { id: String(body.identificacion) }),
        ...warnings(ctx, answer),
      ]);
      return;
    }
    case 'actualizar': {
      const body = registration(ctx, rest);
      const answer = await cr().emisores.update(body as never);
      ctx.result(answer, () => [
        ctx.t('emisorUpdated', { id: String(body.identificacion) }),
        ...warnings(ctx, answer),
      ]);
      return;
    }
    case 'consultar': {
      const parsed = parse(rest, {});
      const id = Number(positional(parsed, 0, 'identificacion'));
      if (!Number.isInteger(id) || id <= 0) throw new UsageError('<identificacion> must be digits');
      const answer = await cr().emisores.get(id);
      ctx.result(answer, () =>
        Object.entries(answer.data ?? {}).map(
          ([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`,
        ),
      );
      return;
    }
    default:
      throw new UsageError('cr emisor registrar | actualizar | consultar (cr emisor --help)');
  }
}

function warnings(ctx: Context, answer: unknown): string[] {
  const list = (answer as { warnings?: unknown }).warnings;
  return Array.isArray(list)
    ? list.map((w) => ctx.t('warning', { text: typeof w === 'string' ? w : JSON.stringify(w) }))
    : [];
}
