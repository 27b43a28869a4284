// Use case of POST /api/recepcion/sincronizar: imports what Hacienda lists as issued to one of the tenant's
// issuers and is not stored yet. With the issuer's own credentials (the token cache and limits of the
// submissions), it pages through GET /comprobantes?receptor=<tipo+id> (REFERENCE §4.5) and reads each new
// clave with GET /comprobantes/{clave}; a document whose XML comes with it is received like an upload
// (origen `sincronizacion`, same inspection), with Hacienda's signed answer from GET /recepcion/{clave} when it
// has one; a document Hacienda rejected is skipped. Hacienda's production API does not return the XML there:
// such claves are reported as skipped with the reason, for the supplier to send the XML. A call is up to 20
// pages and two reads at Hacienda for each of their thousand claves, and its imports read XML on the event loop every tenant shares: a
// tenant may call it RECEPCION_SYNC_LIMIT times per window (429 with Retry-After), and a call counts as one of
// its uploads in progress (RECEPCION_UPLOADS_PER_TENANT).
import { RecepcionSincronizarRequest, type RecepcionSincronizarResponse } from '@cr/contracts';
import { type Ambiente, IdpError, RateLimitedError } from '@cr/hacienda-client';
import { AppError, parseBody } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { findIssuer } from '../emisor/issuer-repository';
import { takeTenantSlot } from '../tenancy/tenant-rate-limit';
import { receiveDocument } from './receive-document';
import type { RecepcionDeps } from './recepcion-deps';
import { listStoredClaves } from './received-repository';

/** Pages read at most per call (50 each): a very large backlog is imported over several calls. */
const MAX_PAGES = 20;

type Data = RecepcionSincronizarResponse['data'];

function upstream(what: string): AppError {
  return new AppError('upstream_error', `Hacienda: ${what}`);
}

function unavailable(what: string): AppError {
  return new AppError('service_unavailable', `Hacienda: ${what}; try again later`);
}

export async function synchronizeReceived(
  deps: RecepcionDeps,
  input: { tenantId: string; body: unknown },
): Promise<Data> {
  const { tenantId } = input;
  const { receptor } = parseBody(RecepcionSincronizarRequest, input.body);
  // The gate first: refused there (429, Retry-After: 1), the call has not spent a slot of the window.
  return deps.uploads.run(tenantId, async () => {
    await takeTenantSlot(deps.db, deps.syncLimiter, tenantId, 'synchronizations with Hacienda');
    return importListed(deps, tenantId, receptor);
  });
}

async function importListed(deps: RecepcionDeps, tenantId: string, receptor: string): Promise<Data> {
  const issuer = await withTenant(
    deps.db,
    tenantId,
    (tx) => findIssuer(tx, tenantId, receptor),
    ONE_STATEMENT,
  );
  if (!issuer) throw new AppError('not_found', `receptor: issuer ${receptor} is not registered`);
  const ambiente = (Number(issuer.ambiente) === 1 ? 1 : 2) as Ambiente;
  const key = { issuerId: `${tenantId}/${receptor}`, ambiente };
  let token: string;
  try {
    token = await deps.hacienda.tokens.getToken(key, async () => {
      const m = await deps.signing.load({ tenantId, identificacion: receptor });
      return { username: m.usuarioHacienda, password: m.claveHacienda };
    });
  } catch (err) {
    if (err instanceof RateLimitedError) throw unavailable('token grant limit reached');
    if (err instanceof IdpError) throw unavailable(`the IdP refused the issuer's credentials (${err.kind})`);
    throw err;
  }
  const recepcion = deps.hacienda.recepcion(ambiente);
  const tipo = String(issuer.tipo_identificacion).padStart(2, '0');
  const filter = `${tipo}${receptor.padStart(12, '0')}`;
  const listed: string[] = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const out = await recepcion.listComprobantes(token, {
      receptor: filter,
      offset: listed.length,
      limit: 50,
    });
    if (out.kind === 'unauthorized') deps.hacienda.tokens.invalidate(key);
    if (out.kind !== 'page') {
      throw upstream(
        `GET /comprobantes answered ${out.kind}${'cause' in out && out.cause ? ` (${out.cause})` : ''}`,
      );
    }
    listed.push(...out.items.map((i) => i.clave));
    if (!out.partial || out.items.length === 0) break;
  }
  const unique = [...new Set(listed)];
  const stored = await withTenant(
    deps.db,
    tenantId,
    (tx) => listStoredClaves(tx, tenantId, unique),
    ONE_STATEMENT,
  );
  const data: Data = { listados: unique.length, importados: [], yaRegistrados: stored.size, omitidos: [] };
  for (const clave of unique.filter((c) => !stored.has(c))) {
    const detail = await recepcion.getComprobante(token, clave);
    if (detail.kind !== 'found') {
      data.omitidos.push({ clave, motivo: `GET /comprobantes/${clave} answered ${detail.kind}` });
      continue;
    }
    if (!detail.comprobanteXml) {
      data.omitidos.push({ clave, motivo: "Hacienda did not return the document's XML; upload it" });
      continue;
    }
    const verdict = await haciendaVerdict(recepcion, token, clave);
    if (verdict.refused) {
      data.omitidos.push({ clave, motivo: verdict.refused });
      continue;
    }
    try {
      const body = { receptor, xml: detail.comprobanteXml };
      const result = await importWithAnswer(deps, tenantId, clave, body, verdict.respuestaXml);
      if (result.created) data.importados.push(clave);
      else data.yaRegistrados += 1;
    } catch (err) {
      // One unreadable or forged document does not stop the others; it is reported, never stored.
      if (!(err instanceof AppError) || err.code === 'internal_error') throw err;
      data.omitidos.push({ clave, motivo: err.message });
    }
  }
  deps.logger.info('received documents synchronized', {
    tenantId,
    receptor,
    ...data,
    omitidos: data.omitidos.length,
  });
  return data;
}

/**
 * Imports the document with Hacienda's answer. An answer that cannot be read (not XML, no MensajeHacienda)
 * does not keep a readable document out, where every later synchronization would skip it again: it is
 * imported without it, its acceptance unconfirmed, as when the state cannot be read at all.
 */
async function importWithAnswer(
  deps: RecepcionDeps,
  tenantId: string,
  clave: string,
  body: { receptor: string; xml: string },
  respuestaXml: string | undefined,
): ReturnType<typeof receiveDocument> {
  if (respuestaXml) {
    try {
      return await receiveDocument(deps, {
        tenantId,
        body: { ...body, respuestaHacienda: respuestaXml },
        origen: 'sincronizacion',
      });
    } catch (err) {
      const unreadableAnswer =
        err instanceof AppError &&
        err.code === 'bad_request' &&
        (err.details ?? []).some((d) => d.path === 'respuestaHacienda');
      if (!unreadableAnswer) throw err;
      deps.logger.warn(
        "Hacienda's answer to a synchronized document could not be read; imported unconfirmed",
        {
          tenantId,
          clave,
          reason: err.message,
        },
      );
    }
  }
  return receiveDocument(deps, { tenantId, body, origen: 'sincronizacion' });
}

/**
 * The document's state at Hacienda (GET /recepcion/{clave}, REFERENCE §4.3), which GET /comprobantes does not
 * give. A document Hacienda rejected (or could not process) has no tax effect: imported, it would wait in the
 * inbox for an answer Hacienda refuses, and a MensajeReceptor number would be spent on it. An accepted one
 * comes with Hacienda's signed answer, checked like an upload's, so its acceptance is confirmed. Where the
 * state cannot be read, the document is imported as before, its acceptance unconfirmed.
 */
async function haciendaVerdict(
  recepcion: ReturnType<RecepcionDeps['hacienda']['recepcion']>,
  token: string,
  clave: string,
): Promise<{ refused?: string; respuestaXml?: string }> {
  const status = await recepcion.status(token, clave);
  if (status.kind !== 'found') return {};
  if (status.indEstado === 'rechazado' || status.indEstado === 'error') {
    return {
      refused: `Hacienda ${status.indEstado === 'error' ? 'could not process' : 'rejected'} it (ind-estado ${status.indEstado}): it has no tax effect and needs no answer`,
    };
  }
  return status.indEstado === 'aceptado' && status.respuestaXml ? { respuestaXml: status.respuestaXml } : {};
}
