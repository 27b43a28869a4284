// cr webhook configurar | consultar | reenviar | escuchar. `escuchar` is a development receiver: it
// listens on 127.0.0.1, verifies every delivery with verifyWebhook (the same check a client's receiver
// makes) and prints the event by its kind (a document's final state, or a received document's deadline),
// answering 204 to good deliveries and 401 to bad ones (the service retries).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type RecepcionDeadlineEvent,
  type ResponseBody,
  type WebhookEvent,
  verifyWebhook,
} from '@cr-einvoice/sdk';
import { parse, positional, str } from '../args';
import type { Context } from '../context';
import { costaRicaTime } from '../costa-rica-time';
import { UsageError } from '../exit-codes';
import { fields } from './lookups';

const CLAVE = /^\d{50}$/;

export async function webhook(ctx: Context, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'configurar': {
      const parsed = parse(rest, {});
      const answer = await ctx.client().webhooks.configure(positional(parsed, 0, 'url'));
      ctx.result(answer.data, () => [ctx.t('webhookConfigured', answer.data)]);
      return;
    }
    case 'consultar': {
      parse(rest, {});
      const answer = await ctx.client().webhooks.get();
      ctx.result(answer.data, () => fields(answer.data));
      return;
    }
    case 'reenviar': {
      const parsed = parse(rest, {});
      const clave = positional(parsed, 0, 'clave');
      if (!CLAVE.test(clave)) throw new UsageError(`<clave> must be 50 digits: ${clave}`);
      const answer = await ctx.client().webhooks.replay(clave);
      ctx.result(answer, () => replayLines(ctx, clave, answer.data));
      return;
    }
    case 'escuchar':
      return listen(ctx, rest);
    default:
      throw new UsageError('cr webhook configurar | consultar | reenviar | escuchar (cr webhook --help)');
  }
}

/**
 * A replay only queues an event: the line says so, and a warning follows when the service said the event will
 * go nowhere, with what changes that. Still exit 0, as for an issuer's warnings: the replay was queued.
 */
function replayLines(
  ctx: Context,
  clave: string,
  data: ResponseBody<'tenant.replayWebhook'>['data'],
): string[] {
  const queued = ctx.t('webhookReplayed', { clave, id: data.eventId });
  switch (data.webhook) {
    case 'activo':
      return [queued];
    case 'sin-url':
      return [queued, ctx.t('warning', { text: ctx.t('replayNoUrl') })];
    case 'desactivado': {
      const since = data.desactivadoEn ? ctx.t('replayDisabledSince', { at: data.desactivadoEn }) : '';
      const reason = data.motivoDesactivacion
        ? ctx.t('replayDisabledReason', { reason: data.motivoDesactivacion })
        : '';
      return [queued, ctx.t('warning', { text: ctx.t('replayDisabled', { since, reason }) })];
    }
  }
}

async function listen(ctx: Context, args: string[]): Promise<void> {
  const parsed = parse(args, {
    puerto: { type: 'string' },
    secreto: { type: 'string', multiple: true },
    configurar: { type: 'boolean' },
    ruta: { type: 'string' },
  });
  const port = Number(str(parsed, 'puerto') ?? '9000');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--puerto must be 0-65535');
  const secrets = [...((parsed.values.secreto as string[] | undefined) ?? [])];
  // "OLD, NEW" or a trailing comma as a person writes it: spaces and empty entries are not secrets.
  if (ctx.env.CR_WEBHOOK_SECRET)
    secrets.push(
      ...ctx.env.CR_WEBHOOK_SECRET.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  const path = str(parsed, 'ruta') ?? '/webhook';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const time = costaRicaTime(Date.now());
      verifyWebhook(Buffer.concat(chunks), req.headers, secrets).then(
        (event) => {
          res.writeHead(204).end();
          const id = String(req.headers['webhook-id'] ?? '');
          if (ctx.options.json) ctx.io.stdout(`${JSON.stringify({ verified: true, id, event })}\n`);
          else ctx.io.stdout(`${eventLine(ctx, event, time, id)}\n`);
        },
        (err: Error) => {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'unauthorized', message: err.message }));
          if (ctx.options.json)
            ctx.io.stdout(`${JSON.stringify({ verified: false, reason: err.message })}\n`);
          else ctx.io.stdout(`${ctx.t('eventBad', { time, reason: err.message })}\n`);
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  if (parsed.values.configurar) {
    const answer = await ctx.client().webhooks.configure(url);
    secrets.unshift(answer.data.secret);
    ctx.io.stderr(`${ctx.t('listeningConfigured', { url })}\n`);
  }
  if (secrets.length === 0) {
    server.close();
    throw new UsageError(
      '--secreto <whsec_…>, CR_WEBHOOK_SECRET or --configurar is needed to verify deliveries',
    );
  }
  if (ctx.options.json) ctx.io.stdout(`${JSON.stringify({ listening: url })}\n`);
  else ctx.io.stdout(`${ctx.t('listening', { url })}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => server.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** One line for a verified event, by its kind: only a received document's deadline has a `type`. */
function eventLine(ctx: Context, event: WebhookEvent, time: string, id: string): string {
  if (!('type' in event))
    return ctx.t('eventOk', { time, estado: event.estado, clave: event.clave, tipo: event.folioType, id });
  if (event.type === 'recepcion.deadline') return deadlineLine(ctx, event, time, id);
  // A kind of event newer than this CLI: its type and clave, which every event has.
  const other = event as { type: unknown; clave?: unknown };
  return ctx.t('eventOther', { time, type: String(other.type), clave: String(other.clave ?? ''), id });
}

function deadlineLine(ctx: Context, event: RecepcionDeadlineEvent, time: string, id: string): string {
  const left = event.diasHabilesRestantes;
  const vars = {
    time,
    clave: event.clave,
    vence: event.vence,
    emisor: event.emisor.nombre,
    receptor: event.receptor,
    id,
  };
  return left < 0
    ? ctx.t('deadlinePassed', { ...vars, dias: -left })
    : ctx.t('deadlineNear', { ...vars, dias: left });
}
