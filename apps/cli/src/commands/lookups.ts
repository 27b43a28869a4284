// cr cabys | exoneracion | contribuyente.
import { parse, positional, str } from '../args';
import type { Context } from '../context';
import { UsageError } from '../exit-codes';

/** `clave: valor` lines of an object, nested values as JSON. */
export function fields(data: object): string[] {
  return Object.entries(data).map(
    ([k, v]) => `${k}: ${v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v)}`,
  );
}

export async function cabys(ctx: Context, args: string[]): Promise<void> {
  const parsed = parse(args, { limite: { type: 'string' } });
  const text = parsed.positionals.join(' ').trim();
  if (!text) throw new UsageError('missing <texto>');
  const limite = str(parsed, 'limite');
  if (limite !== undefined && !/^\d+$/.test(limite)) throw new UsageError('--limite must be a whole number');
  const answer = await ctx.client().hacienda.cabys(text, limite ? { limite: Number(limite) } : {});
  ctx.result(answer.data, () =>
    answer.data.length
      ? answer.data.map((r) => `${r.codigo}  ${String(r.impuesto).padStart(2)} %  ${r.descripcion}`)
      : [ctx.t('noResults')],
  );
}

export async function exoneracion(ctx: Context, args: string[]): Promise<void> {
  const parsed = parse(args, {});
  const answer = await ctx.client().hacienda.exoneracion(positional(parsed, 0, 'numero'));
  ctx.result(answer.data, () => fields(answer.data));
}

export async function contribuyente(ctx: Context, args: string[]): Promise<void> {
  const parsed = parse(args, {});
  const answer = await ctx.client().hacienda.contribuyente(positional(parsed, 0, 'identificacion'));
  ctx.result(answer.data, () => fields(answer.data));
}
