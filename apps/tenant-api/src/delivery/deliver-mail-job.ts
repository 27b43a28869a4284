// The `mail.deliver` queue: one job per e-mail. The first run of the job raised on acceptance decides the
// recipients (the receptor's CorreoElectronico in the signed XML, then the request's copias; none → nothing
// is sent or recorded) and records the e-mail; a resend records its own before queueing. Each run renders
// the PDF, hands the message to the tenant's SMTP server (or the platform's) and records the attempt; a
// refusal, a 4xx/5xx reply or a timeout is retried on the mail schedule, and after the last retry the
// e-mail is given up (fallido; a resend starts a new one). No transaction is held while SMTP talks. Through
// the platform's server, an e-mail naming addresses its document does not takes a slot of the tenant's
// MAIL_RESEND_NEW_ADDRESS_LIMIT unless its resend took one (new-address-budget.ts); none left, it is given up.
import {
  type Job,
  type JobContext,
  type JobResult,
  type QueueOptions,
  computeBackoff,
  jobResult,
} from '@cr/jobs';
import { finishWithWrites } from '../db/finish-job';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import type { BrandingRow } from './branding-repository';
import { comprobanteView } from './comprobante-views';
import { findMailJobGate, findMailJobInputs } from './mail-job-inputs';
import { composeMail, defaultRecipients } from './mail-message';
import { MAIL_QUEUE, type MailDeps, type MailJobDeps, type MailJobPayload } from './mail-deps';
import {
  type DocumentForMail,
  KEPT_REPLY_CHARS,
  type MailMessageRow,
  mailAttemptWrites,
  insertMailMessage,
  undeliveredRecipients,
} from './mail-repository';
import type { MailSettingsRow } from './mail-settings-repository';
import { markNewAddressCharged, namesNewAddress } from './new-address-budget';
import { renderPdf } from './render-document-pdf';
import { type SendOutcome, sendMail } from './send-mail';
import { type SmtpServer, platformServer, tenantServer } from './smtp-server';

type Prepared =
  | { kind: 'stop'; result: JobResult }
  | {
      kind: 'send';
      message: MailMessageRow;
      doc: DocumentForMail & { respuesta_xml: string };
      attempt: number;
      newAddressCharged: boolean;
      settings: MailSettingsRow | undefined;
      branding: BrandingRow | undefined;
    };

/**
 * Reads what the run sends with and, on the first run, records the e-mail with its recipients. The read and
 * that write are a statement each, their own transactions: the signed XML is read between them with no
 * connection held, and a read takes no lock for a transaction around both to keep (two runs of one job, after
 * a lost lease, still meet at the e-mail's primary key: the second one's insert fails and it is retried).
 */
async function prepare(deps: MailDeps, job: Job<MailJobPayload>, now: Date): Promise<Prepared> {
  const { tenantId, documentId, messageId } = job.payload;
  const inputs = await withTenant(
    deps.db,
    tenantId,
    (tx) => findMailJobInputs(tx, tenantId, documentId, messageId),
    ONE_STATEMENT,
  );
  if (!inputs) return { kind: 'stop', result: jobResult.fail(`document ${documentId} not found`) };
  const { doc, settings, branding } = inputs;
  if (doc.estado !== 'aceptado' || doc.respuesta_xml === null) {
    return { kind: 'stop', result: jobResult.fail(`document ${doc.clave} is ${doc.estado}, not aceptado`) };
  }
  let message = inputs.message;
  if (!message) {
    const recipients = defaultRecipients(comprobanteView(doc.xml), doc.correo_copias);
    if (recipients.length === 0) {
      deps.logger.info('no e-mail to send: the receptor has no correoElectronico', {
        tenantId,
        clave: doc.clave,
      });
      return { kind: 'stop', result: jobResult.done() };
    }
    const row = { id: messageId, documentId, reason: job.payload.reason, recipients };
    await withTenant(deps.db, tenantId, (tx) => insertMailMessage(tx, tenantId, row, now), ONE_STATEMENT);
    message = { ...row, document_id: documentId, delivered_to: [], state: 'pendiente', created_at: now };
  }
  // Claimed again after the e-mail was finished (crash between the two writes): nothing left to do.
  if (message.state !== 'pendiente') return { kind: 'stop', result: jobResult.done() };
  return {
    kind: 'send',
    message,
    doc: { ...doc, respuesta_xml: doc.respuesta_xml },
    // A message written by this run has no attempts yet.
    attempt: inputs.attempts + 1,
    newAddressCharged: inputs.newAddressCharged,
    settings,
    branding,
  };
}

const NO_SERVER =
  'no SMTP server is configured (the platform has no SMTP_URL and the tenant none of its own: POST /api/configurar/correo)';

/** The server for this attempt, or why there is none (a tenant host now refused by the SSRF policy). */
async function serverFor(
  deps: MailDeps,
  tenantId: string,
  settings: MailSettingsRow | undefined,
): Promise<SmtpServer | SendOutcome> {
  if (!settings) return platformServer(deps.mail) ?? { ok: false, code: null, reply: NO_SERVER };
  try {
    return await tenantServer(deps.secrets, deps.mail, tenantId, settings);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, code: null, reply: `${settings.host}: ${e.code ? `${e.code} ` : ''}${e.message}` };
  }
}

/**
 * Whether the platform's server may send this e-mail as far as MAIL_RESEND_NEW_ADDRESS_LIMIT goes: it names
 * only its document's addresses, or it was charged (by its resend, or by an earlier run), or a slot is free
 * now. Asked for while the tenant had a server of its own, it was not charged: the tenant could queue resends
 * to any address against a server that answers 4xx, switch to the platform's and have every retry relayed.
 */
async function newAddressesAllowed(
  deps: MailJobDeps,
  tenantId: string,
  message: MailMessageRow,
  doc: DocumentForMail,
  charged: boolean,
): Promise<boolean> {
  if (!namesNewAddress(comprobanteView(doc.xml), doc.correo_copias, message.recipients)) return true;
  if (charged) return true;
  // Slot first, mark second: a run cut off between them (or two runs after a lost lease) charges twice,
  // never zero times.
  const slot = await deps.mailNewAddressLimiter.tryAcquire(deps.db, tenantId);
  if (!slot.ok) return false;
  await withTenant(deps.db, tenantId, (tx) => markNewAddressCharged(tx, tenantId, message.id), ONE_STATEMENT);
  return true;
}

// Given up rather than deferred, as the resend itself is refused (429, nothing queued) past the budget: the
// tenant sees why in the e-mail's attempt and resends once the window frees a slot (the 429 says when). A
// deferral would send, up to a day later and unannounced, an e-mail asked of another server, and would let a
// tenant pile up deferred jobs that all wake for each freed slot.
const NEW_ADDRESS_BUDGET_SPENT =
  "not sent through the platform's SMTP server: it names addresses the document does not, and the tenant's budget of those (MAIL_RESEND_NEW_ADDRESS_LIMIT) is spent; resend it later or configure the tenant's own server";

/** A deferred e-mail waits at least this long, plus up to as much again at random (see deferred). */
const MIN_DEFERRAL_MS = 60_000;

/**
 * The tenant's budget on the platform's SMTP server is spent (MAIL_PLATFORM_LIMIT): no attempt is made or
 * recorded (the e-mail stays pendiente, its retries untouched) and the job runs again once a slot frees up.
 * Slots free one by one as old sends leave the window: without the floor and the spread, every deferred
 * e-mail of the tenant would wake at the same moment for each of them, and all but one defer again.
 */
function deferred(
  deps: MailJobDeps,
  job: Job<MailJobPayload>,
  clave: string,
  envioId: string,
  now: Date,
  freeInMs: number,
): JobResult {
  const waitMs =
    Math.max(freeInMs, MIN_DEFERRAL_MS) + Math.floor((deps.random ?? Math.random)() * MIN_DEFERRAL_MS);
  const reason =
    "the tenant's budget of e-mails through the platform's SMTP server is spent (MAIL_PLATFORM_LIMIT)";
  deps.logger.warn('e-mail deferred', { tenantId: job.payload.tenantId, clave, envioId, reason, waitMs });
  return jobResult.retryAt(new Date(now.getTime() + waitMs), reason);
}

/**
 * A deferred e-mail wakes every one to two minutes while its tenant's budget stays spent (a day, for a tenant
 * past its daily one), and prepare would read both of its document's XMLs (up to megabytes), the branding and
 * parse the XML on each wake only for tryAcquire to say no: a tenant's hundreds of them would hold the event
 * loop for every tenant. So a re-run asks the platform's window first, taking nothing, and past the budget
 * reads only what decides that the e-mail goes through the platform's server (it is recorded and pendiente,
 * the tenant has no server of its own) and defers. It runs before MAIL_RESEND_NEW_ADDRESS_LIMIT is asked,
 * which needs the XML: an e-mail that budget refuses is given up on the run after the window frees a slot.
 * A first claim skips it: the acceptance's e-mail is not recorded yet (its recipients come from the XML) and
 * every e-mail would pay a statement more; the re-runs are what pile up.
 */
async function deferredBeforeReading(
  deps: MailJobDeps,
  job: Job<MailJobPayload>,
  now: () => Date,
): Promise<JobResult | undefined> {
  if (job.attempts < 2 || !deps.mail.smtpUrl) return undefined;
  const { tenantId, documentId, messageId } = job.payload;
  const slot = await deps.platformMailLimiter.peek(deps.db, tenantId);
  if (slot.ok) return undefined;
  const gate = await withTenant(
    deps.db,
    tenantId,
    (tx) => findMailJobGate(tx, tenantId, documentId, messageId),
    ONE_STATEMENT,
  );
  // Anything else (not recorded, no longer pendiente, the tenant's own server) is for prepare to settle.
  if (!gate || gate.ownServer || gate.state !== 'pendiente' || gate.estado !== 'aceptado') return undefined;
  return deferred(deps, job, gate.clave, messageId, now(), slot.retryAfterMs);
}

export async function runMailDelivery(
  deps: MailJobDeps,
  job: Job<MailJobPayload>,
  context: Pick<JobContext, 'now'> & Partial<Pick<JobContext, 'finishIn'>>,
): Promise<JobResult> {
  const early = await deferredBeforeReading(deps, job, context.now);
  if (early) return early;
  const prepared = await prepare(deps, job, context.now());
  if (prepared.kind === 'stop') return prepared.result;
  const { message, doc, attempt, newAddressCharged, settings, branding } = prepared;
  const { tenantId } = job.payload;
  const server = await serverFor(deps, tenantId, settings);
  // Settled before any SMTP: no usable server, or a budget that refuses this e-mail.
  let refused: SendOutcome | undefined = 'ok' in server ? server : undefined;
  if (!('ok' in server) && server.origin === 'plataforma') {
    if (!(await newAddressesAllowed(deps, tenantId, message, doc, newAddressCharged))) {
      refused = { ok: false, code: null, reply: NEW_ADDRESS_BUDGET_SPENT };
    } else {
      // The platform's server is every tenant's: past its budget a tenant's e-mail waits, not another's.
      const slot = await deps.platformMailLimiter.tryAcquire(deps.db, tenantId);
      if (!slot.ok) return deferred(deps, job, doc.clave, message.id, context.now(), slot.retryAfterMs);
    }
  }
  let outcome: SendOutcome;
  if (refused) outcome = refused;
  else if ('ok' in server) outcome = server;
  else {
    // One reading of the signed XML (comprobanteView, shared with the job that renders the PDF for the
    // webhook) serves the recipients, the PDF and the message.
    const view = comprobanteView(doc.xml);
    const pdf = await renderPdf(doc.xml, branding);
    const mail = composeMail(
      {
        clave: doc.clave,
        view,
        xml: doc.xml,
        respuestaXml: doc.respuesta_xml,
        pdf,
      },
      // After a server took the message for some recipients and refused others, the others only.
      undeliveredRecipients(message),
    );
    outcome = await sendMail(deps.smtp, tenantId, server, mail);
  }
  const at = context.now();
  // Without any server (or without budget) there is nothing to wait for: given up at once; a resend after
  // configuring (or once the window frees a slot) sends it.
  const retries = refused ? 0 : deps.mail.retryDelaysMs.length;
  const retryIn =
    outcome.ok || attempt > retries
      ? undefined
      : computeBackoff(attempt, {
          schedule: deps.mail.retryDelaysMs,
          ...(deps.random ? { random: deps.random } : {}),
        });
  // No usable server (or a spent budget) is configuration or policy, not a failed job: the e-mail is recorded
  // fallido with the reason (consultar shows it) and the jobs' failure count stays a signal of deliveries that
  // really failed.
  const result =
    outcome.ok || (retryIn === undefined && refused)
      ? jobResult.done()
      : retryIn === undefined
        ? jobResult.fail(`gave up after ${attempt} attempts: ${outcome.reply}`)
        : jobResult.retryAt(new Date(at.getTime() + retryIn), outcome.reply);
  const end = outcome.ok ? 'enviado' : retryIn === undefined ? 'fallido' : undefined;
  const writes = mailAttemptWrites(tenantId, { messageId: message.id, attempt, ...outcome, at }, end);
  // The attempt, what it settles and the job's outcome: one statement, the whole transaction.
  await finishWithWrites(deps.db, tenantId, context, result, writes);
  const log = {
    tenantId,
    clave: doc.clave,
    envioId: message.id,
    attempt,
    recipients: message.recipients.length,
    server: 'ok' in server ? null : `${server.origin}:${server.host}`,
    code: outcome.code,
  };
  // The server chooses its reply: a log line, shipped and indexed with every tenant's, carries what the
  // attempt's row keeps, not kilobytes of it.
  const reply = outcome.reply.slice(0, KEPT_REPLY_CHARS);
  if (outcome.ok) deps.logger.info('e-mail sent', log);
  else if (retryIn === undefined) deps.logger.warn('e-mail given up', { ...log, reply });
  else deps.logger.info('e-mail not sent; will retry', { ...log, reply, retryInMs: retryIn });
  return result;
}

/** The queue this module runs, for the app's one Worker: `queues: { ...mailQueues(deps), … }`. */
export function mailQueues(deps: MailJobDeps): Record<string, QueueOptions<MailJobPayload>> {
  return { [MAIL_QUEUE]: { handler: (job, context) => runMailDelivery(deps, job, context) } };
}
