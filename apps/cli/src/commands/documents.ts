// cr enviar | consultar | descargar.
import { writeFileSync } from 'node:fs';
import type { CrEinvoiceClient, DocumentStatus } from '@cr-einvoice/sdk';
import { parse, positional, readJsonFile, str } from '../args';
import type { Context } from '../context';
import { costaRicaTime } from '../costa-rica-time';
import { EXIT, UsageError } from '../exit-codes';
import { Progress } from '../progress';

const CLAVE = /^\d{50}$/;

function clave(value: string): string {
  if (!CLAVE.test(value)) throw new UsageError(`<clave> must be 50 digits: ${value}`);
  return value;
}

/** The line after a list the service cut to its latest entries (`total` counts them all; older servers omit it). */
function olderNotShown(ctx: Context, shown: number, total: number | undefined): string[] {
  return total !== undefined && total > shown ? [ctx.t('olderNotShown', { n: total - shown, shown })] : [];
}

type WebhookDelivery = DocumentStatus['webhook']['entregas'][number];

/** One webhook delivery of `consultar`: a delivery made while no endpoint was configured has no URL to show. */
export function webhookLine(e: WebhookDelivery): string {
  const outcome = e.status ?? e.error ?? '?';
  return `  ${costaRicaTime(e.fecha)} webhook #${e.intento} → ${outcome}${e.url ? ` (${e.url})` : ''}`;
}

function describe(ctx: Context, doc: DocumentStatus): string[] {
  const lines = [
    ctx.t('clave', { clave: doc.clave }),
    ctx.t('estado', { estado: doc.estado }),
    ctx.t('consecutivo', { consecutivo: doc.consecutivo }),
  ];
  const mensaje = doc.mensajeHacienda;
  for (const d of mensaje.detalle) lines.push(ctx.t('detail', { text: `${d.codigo} ${d.mensaje}` }));
  if (mensaje.errorCause) lines.push(ctx.t('detail', { text: mensaje.errorCause }));
  if (doc.webhook.entregas.length) {
    lines.push(ctx.t('history'));
    for (const e of doc.webhook.entregas) lines.push(webhookLine(e));
    lines.push(...olderNotShown(ctx, doc.webhook.entregas.length, doc.webhook.total));
  }
  const envios = doc.correo?.envios ?? [];
  if (envios.length) {
    lines.push(ctx.t('mailHistory'));
    for (const e of envios) {
      const last = e.intentos.at(-1);
      const reply = last && !last.ok && last.respuesta ? `: ${last.respuesta}` : '';
      lines.push(
        `  ${costaRicaTime(e.fecha)} ${e.motivo} ${e.envioId} → ${e.estado}${reply} (${e.destinatarios.join(', ')})`,
      );
    }
    lines.push(...olderNotShown(ctx, envios.length, doc.correo?.total));
  }
  return lines;
}

export async function enviar(ctx: Context, args: string[]): Promise<number> {
  const parsed = parse(args, {
    esperar: { type: 'boolean' },
    timeout: { type: 'string' },
    'idempotency-key': { type: 'string' },
  });
  const body = readJsonFile(positional(parsed, 0, 'documento.json'));
  const timeout = Number(str(parsed, 'timeout') ?? '120');
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new UsageError('--timeout must be a number of seconds');
  const cr = ctx.client();
  const key = str(parsed, 'idempotency-key');
  const sent = await cr.documentos.enviar(body as never, key ? { idempotencyKey: key } : {});
  if (!parsed.values.esperar) {
    ctx.result(sent, () => [ctx.t('sent', { clave: sent.clave })]);
    return EXIT.ok;
  }
  ctx.say(ctx.t('sent', { clave: sent.clave }));
  const final = await waitForVerdict(ctx, cr, sent.clave, timeout);
  ctx.result(final.data, () => [
    ctx.t('verdict', { estado: final.data.estado }),
    ...describe(ctx, final.data).slice(2),
  ]);
  return final.data.estado === 'aceptado' ? EXIT.ok : EXIT.rejected;
}

async function waitForVerdict(ctx: Context, cr: CrEinvoiceClient, clave: string, timeoutSeconds: number) {
  const progress = new Progress(ctx.io);
  try {
    return await cr.documentos.esperarVeredicto(clave, {
      timeoutMs: timeoutSeconds * 1000,
      onProgress: (p) =>
        progress.update(ctx.t('waiting', { estado: p.estado, s: Math.round(p.elapsedMs / 1000) }), p.estado),
    });
  } finally {
    progress.done();
  }
}

export async function consultar(ctx: Context, args: string[]): Promise<void> {
  const parsed = parse(args, {});
  const c = clave(positional(parsed, 0, 'clave'));
  const answer = await ctx.client().documentos.consultar(c);
  ctx.result(answer.data, () => describe(ctx, answer.data));
}

type Kind = 'xml' | 'respuesta' | 'pdf';

export async function descargar(ctx: Context, args: string[]): Promise<void> {
  const parsed = parse(args, {
    xml: { type: 'boolean' },
    respuesta: { type: 'boolean' },
    pdf: { type: 'boolean' },
    salida: { type: 'string', short: 'o' },
  });
  const c = clave(positional(parsed, 0, 'clave'));
  const kinds = (['xml', 'respuesta', 'pdf'] as Kind[]).filter((k) => parsed.values[k]);
  if (kinds.length !== 1) throw new UsageError('choose one of --xml, --respuesta, --pdf');
  const kind = kinds[0]!;
  const cr = ctx.client();
  const content = await download(cr, kind, c);
  const file =
    str(parsed, 'salida') ?? { xml: `${c}.xml`, respuesta: `${c}_respuesta.xml`, pdf: `${c}.pdf` }[kind];
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  if (file === '-') {
    process.stdout.write(bytes);
    return;
  }
  writeFileSync(file, bytes);
  ctx.result({ file, bytes: bytes.length, kind, clave: c }, () => [
    ctx.t('saved', { file, bytes: bytes.length }),
  ]);
}

async function download(cr: CrEinvoiceClient, kind: Kind, c: string): Promise<string | Uint8Array> {
  switch (kind) {
    case 'xml':
      return cr.documentos.descargarXml(c);
    case 'respuesta':
      return cr.documentos.descargarRespuesta(c);
    case 'pdf':
      return cr.documentos.descargarPdf(c);
  }
}
