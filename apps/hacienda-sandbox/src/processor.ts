// Asynchronous processing of received documents, as Hacienda does it: recibido → procesando → aceptado |
// rechazado | error, each step after a configurable delay, then the status JSON POSTed to the callbackUrl
// (retried 3 times on a non-200 or timeout). State lives in the database, so a restart resumes whatever
// was pending. Transitions are also emitted as events, for tests and logs.
import { EventEmitter } from 'node:events';
import { availableParallelism } from 'node:os';
import type { SandboxRecepcionStatus } from '@cr/contracts';
import type { Db, Logger } from '@cr/service-kit';
import { CallbackPoster } from './callback-poster';
import type { ForcedVerdict, VerdictResult } from './verdict/run-verdict';

export interface DocumentRow {
  clave: string;
  fecha: string;
  estado: string;
  callback_url: string | null;
  /** Read only while the document is in procesando (the verdict's input); null otherwise. */
  comprobante_xml: string | null;
  forced: ForcedVerdict | null;
  respuesta_xml: string | null;
  kind: DocumentKind;
}

/** What was received: a comprobante, or a receiver's MensajeReceptor (its root was checked on reception). */
export type DocumentKind = 'comprobante' | 'mensaje_receptor';

export interface ProcessorOptions {
  db: Db;
  logger: Logger;
  delayMs: number;
  callbackTimeoutMs: number;
  callbackRetryDelayMs: number;
  /** Decides the verdict of one document (decoded XML). */
  decide(
    xml: string,
    clave: string,
    forced: ForcedVerdict | undefined,
    kind: DocumentKind,
  ): Promise<VerdictResult>;
}

export interface TransitionEvent {
  clave: string;
  estado: string;
}

export interface CallbackEvent {
  clave: string;
  attempt: number;
  status?: number;
  delivered: boolean;
}

/** The GET /recepcion/{clave} body, which is also the callback body (REFERENCE §4.3, §4.4). */
export function toStatusBody(
  row: Pick<DocumentRow, 'clave' | 'fecha' | 'estado' | 'respuesta_xml' | 'callback_url'>,
): SandboxRecepcionStatus {
  return {
    clave: row.clave,
    fecha: row.fecha,
    'ind-estado': row.estado as SandboxRecepcionStatus['ind-estado'],
    ...(row.respuesta_xml ? { 'respuesta-xml': row.respuesta_xml } : {}),
    ...(row.callback_url ? { callbackUrl: row.callback_url } : {}),
  };
}

export const CALLBACK_RETRIES = 3;

export class DocumentProcessor extends EventEmitter {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  // Documents advanced at once. A verdict parses the document and waits for its checks; unbounded, a burst of
  // 50 documents/s held thousands of parsed documents in memory at a time (the soak saw 2.6 GB). Waiting
  // here costs a clave, not a parsed document.
  private readonly maxAdvancing = availableParallelism() * 2;
  private advancing = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly callbacks: CallbackPoster;

  constructor(private readonly options: ProcessorOptions) {
    super();
    this.callbacks = new CallbackPoster(options.callbackTimeoutMs);
  }

  /** Re-schedules every document left in recibido/procesando (after a restart). */
  async resume(): Promise<number> {
    const pending = await this.options.db.query<{ clave: string }>(
      "SELECT clave FROM documents WHERE estado IN ('recibido', 'procesando') ORDER BY received_at",
    );
    for (const r of pending.rows) this.schedule(r.clave);
    return pending.rowCount;
  }

  schedule(clave: string, delayMs = this.options.delayMs): void {
    this.later(delayMs, () => this.inTurn(() => this.advance(clave)));
  }

  /** A document just stored in recibido: its first step is one conditional UPDATE, with nothing to read. */
  received(clave: string): void {
    this.later(this.options.delayMs, () => this.inTurn(() => this.startProcessing(clave)));
  }

  private async inTurn(fn: () => Promise<void>): Promise<void> {
    if (this.advancing >= this.maxAdvancing) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.advancing += 1;
    try {
      await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.advancing -= 1;
    }
  }

  /** Documents being advanced now and waiting for a turn (tests, diagnostics). */
  get backlog(): { advancing: number; waiting: number } {
    return { advancing: this.advancing, waiting: this.waiting.length };
  }

  private later(delayMs: number, fn: () => Promise<void>): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = fn()
        .catch((err: unknown) => {
          this.options.logger.error('document processing failed', { err });
        })
        .finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }, delayMs);
    this.timers.add(timer);
  }

  /** The row without the comprobante, which only the verdict reads: a base64 copy of ~15 KB per document
   *  that the other steps (the first transition, each callback) would fetch for nothing. */
  private async load(clave: string): Promise<DocumentRow | undefined> {
    const r = await this.options.db.query<DocumentRow>(
      `SELECT clave, fecha, estado, callback_url, forced, respuesta_xml, kind,
              CASE WHEN estado = 'procesando' THEN comprobante_xml END AS comprobante_xml
         FROM documents WHERE clave = $1`,
      [clave],
    );
    return r.rows[0];
  }

  private async startProcessing(clave: string): Promise<void> {
    if (this.closed) return;
    const moved = await this.options.db.query(
      "UPDATE documents SET estado = 'procesando', updated_at = now() WHERE clave = $1 AND estado = 'recibido'",
      [clave],
    );
    // Not in recibido (any more): whatever state it is in was reached, and scheduled, by another step.
    if (!moved.rowCount) return;
    this.emit('transition', { clave, estado: 'procesando' } satisfies TransitionEvent);
    this.schedule(clave);
  }

  private async advance(clave: string): Promise<void> {
    const row = await this.load(clave);
    if (!row || this.closed) return;
    const { db, logger } = this.options;
    if (row.estado === 'recibido') return this.startProcessing(clave);
    if (row.estado !== 'procesando') return;
    // "Never answer": the document stays in procesando, as when Hacienda's queue stalls.
    if (row.forced?.outcome === 'never' || row.comprobante_xml === null) return;
    const xml = Buffer.from(row.comprobante_xml, 'base64').toString('utf8');
    const verdict = await this.options.decide(xml, clave, row.forced ?? undefined, row.kind);
    const respuesta =
      verdict.estado === 'error' ? null : Buffer.from(verdict.respuestaXml, 'utf8').toString('base64');
    const judged = await db.query(
      "UPDATE documents SET estado = $2, respuesta_xml = $3, findings = $4, updated_at = now() WHERE clave = $1 AND estado = 'procesando'",
      [clave, verdict.estado, respuesta, JSON.stringify(verdict.findings)],
    );
    logger.info('document processed', { clave, estado: verdict.estado, findings: verdict.findings.length });
    this.emit('transition', { clave, estado: verdict.estado } satisfies TransitionEvent);
    if (!row.callback_url) return;
    // The first callback carries what this step just stored; had another step judged the document first
    // (nothing updated here), the callback reads what that one stored.
    const stored = { ...row, estado: verdict.estado, respuesta_xml: respuesta };
    this.deliver(clave, 1, judged.rowCount ? toStatusBody(stored) : undefined);
  }

  private deliver(clave: string, attempt: number, body?: SandboxRecepcionStatus): void {
    this.later(attempt === 1 ? 0 : this.options.callbackRetryDelayMs, () =>
      this.attemptCallback(clave, attempt, body),
    );
  }

  /** One POST of the status to the callbackUrl; `known` is the status when it was just stored (no read). */
  private async attemptCallback(
    clave: string,
    attempt: number,
    known?: SandboxRecepcionStatus,
  ): Promise<void> {
    const body = known ?? (await this.load(clave).then((row) => (row ? toStatusBody(row) : undefined)));
    if (!body?.callbackUrl) return;
    let status: number | undefined;
    try {
      status = await this.callbacks.post(body.callbackUrl, JSON.stringify(body));
    } catch (err) {
      this.options.logger.warn('callback failed', {
        clave,
        attempt,
        reason: err instanceof Error ? err.message : String(err),
      });
    }
    const delivered = status === 200;
    await this.options.db.query(
      'UPDATE documents SET callback_attempts = $2, callback_status = $3 WHERE clave = $1',
      [clave, attempt, delivered ? 'delivered' : status ? `http ${status}` : 'no answer'],
    );
    this.emit('callback', {
      clave,
      attempt,
      delivered,
      ...(status ? { status } : {}),
    } satisfies CallbackEvent);
    if (!delivered && attempt <= CALLBACK_RETRIES) this.deliver(clave, attempt + 1);
  }

  /** Stops scheduling and waits for the steps already running. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
    this.callbacks.close();
  }
}
