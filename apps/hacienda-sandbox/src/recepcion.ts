// Recepción API v1 (REFERENCE §4): POST /recepcion takes Hacienda's JSON, checks what Hacienda refuses
// synchronously (400 with X-Error-Cause), stores the document and answers 202 with Location; GET
// /recepcion/{clave} gives the status. Both need a live IdP access token and carry rate-limit headers.
import { SandboxRecepcionRequest } from '@cr/contracts';
import { AppError, type Db, parseBody } from '@cr/service-kit';
import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import type { TokenService } from './idp';
import { type DocumentProcessor, toStatusBody } from './processor';
import { publicBase } from './public-url';
import type { RateLimiter } from './rate-limit';
import { mountComprobantesRoutes } from './comprobantes';
import { receiveReceptorMessage } from './receptor-messages';
import { ROOTS, parseComprobante, UnprocessableXmlError } from './verdict/parse-comprobante';

export interface RecepcionOptions {
  db: Db;
  tokens: TokenService;
  limiter: RateLimiter;
  processor: DocumentProcessor;
  publicUrl?: string | undefined;
}

export function cause(message: string): AppError {
  return new AppError('bad_request', message, {
    headers: { 'X-Error-Cause': headerSafe(message), 'validation-exception': 'true' },
  });
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** X-Error-Cause must be a single header line of Latin-1; Hacienda's texts are Spanish. */
function headerSafe(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '?')
    .slice(0, 500);
}

export function createRecepcionRouter(options: RecepcionOptions): Router {
  const { db, tokens, limiter, processor } = options;
  const router = express.Router();

  const authenticate: RequestHandler = async (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const m = /^bearer\s+(\S+)$/i.exec(header);
    const claims = m?.[1] ? await tokens.verifyAccess(m[1]) : undefined;
    if (!claims) {
      return next(
        new AppError('unauthorized', 'missing, invalid or expired access token', {
          headers: { 'WWW-Authenticate': 'Bearer realm="rut-stag"' },
        }),
      );
    }
    res.locals.username = claims.username;
    // Per-taxpayer limit: every IdP user is one taxpayer's credentials.
    if (!limiter.hit(claims.username, res)) {
      return next(new AppError('too_many_requests', 'rate limit exceeded for this taxpayer'));
    }
    next();
  };

  router.post('/recepcion/v1/recepcion', authenticate, async (req, res) => {
    const body = (() => {
      try {
        return parseBody(SandboxRecepcionRequest, req.body);
      } catch (err) {
        throw err instanceof AppError ? cause(err.message) : err;
      }
    })();
    if (!/^\d{50}$/.test(body.clave))
      throw cause(`La clave ${body.clave} no es válida: debe tener 50 dígitos`);
    if (!RFC3339.test(body.fecha) || Number.isNaN(new Date(body.fecha).getTime())) {
      throw cause(`fecha ${body.fecha} no tiene el formato yyyy-MM-ddTHH:mm:ssZ`);
    }
    const compact = body.comprobanteXml.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) {
      throw cause('comprobanteXml no es Base64 válido');
    }
    const xml = Buffer.from(compact, 'base64').toString('utf8');
    // No DTD is part of a comprobante; refusing it keeps entity expansion (XML bombs) out of every parser.
    if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw cause('comprobanteXml no puede contener una DTD');
    if (body.consecutivoReceptor !== undefined) {
      const stored = await receiveReceptorMessage(db, body, xml, compact, res.locals.username, cause);
      processor.emit('transition', { clave: stored, estado: 'recibido' });
      processor.received(stored);
      const location = `${publicBase(req, options.publicUrl)}/recepcion/v1/recepcion/${stored}`;
      res.status(202).set('Location', location).end();
      return;
    }
    let parsed: ReturnType<typeof parseComprobante>;
    try {
      parsed = parseComprobante(xml);
    } catch (err) {
      if (err instanceof UnprocessableXmlError)
        throw cause(`comprobanteXml no contiene un XML válido: ${err.message}`);
      throw err;
    }
    if (parsed.rootName === 'MensajeReceptor') {
      throw cause('Un MensajeReceptor se envía con consecutivoReceptor');
    }
    if (parsed.clave !== body.clave) {
      throw cause(
        `La clave del mensaje (${body.clave}) no coincide con la clave del comprobante (${parsed.clave ?? 'ausente'})`,
      );
    }
    if (
      parsed.emisor.numero !== body.emisor.numeroIdentificacion ||
      parsed.emisor.tipo !== body.emisor.tipoIdentificacion
    ) {
      throw cause('El emisor del mensaje no coincide con el emisor del comprobante');
    }
    if (body.receptor && parsed.receptor && parsed.receptor.numero !== body.receptor.numeroIdentificacion) {
      throw cause('El receptor del mensaje no coincide con el receptor del comprobante');
    }
    if (body.callbackUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(body.callbackUrl)) {
      throw cause('callbackUrl no es un URL http(s) válido');
    }
    // One statement: the oldest forced verdict (locked, as concurrent receptions queue on it) goes into the
    // document and is used up only if the document is new.
    const stored = await db.query<{ inserted: number }>(
      `WITH next AS (
         SELECT id, verdict FROM forced_verdicts ORDER BY id LIMIT 1 FOR UPDATE
       ), inserted AS (
         INSERT INTO documents (clave, fecha, emisor_tipo, emisor_numero, receptor_tipo, receptor_numero,
           callback_url, username, comprobante_xml, estado, forced, tipo, referenced_clave)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'recibido', (SELECT verdict FROM next), $10, $11)
         ON CONFLICT (clave) DO NOTHING
         RETURNING clave
       ), used AS (
         DELETE FROM forced_verdicts WHERE id = (SELECT id FROM next) AND EXISTS (SELECT 1 FROM inserted)
       )
       SELECT count(*)::int AS inserted FROM inserted`,
      [
        body.clave,
        body.fecha,
        body.emisor.tipoIdentificacion,
        body.emisor.numeroIdentificacion,
        body.receptor?.tipoIdentificacion ?? null,
        body.receptor?.numeroIdentificacion ?? null,
        body.callbackUrl ?? null,
        res.locals.username,
        compact,
        ROOTS[parsed.rootName]?.tipo ?? null,
        parsed.informacionReferencia.find((r) => /^\d{50}$/.test(r.numero ?? ''))?.numero ?? null,
      ],
    );
    if (stored.rows[0]?.inserted !== 1) {
      throw cause(`El comprobante con la Clave [${body.clave}] ya fue recibido anteriormente.`);
    }
    processor.emit('transition', { clave: body.clave, estado: 'recibido' });
    processor.received(body.clave);
    const location = `${publicBase(req, options.publicUrl)}/recepcion/v1/recepcion/${body.clave}`;
    res.status(202).set('Location', location).end();
  });

  router.get('/recepcion/v1/recepcion/:clave', authenticate, async (req, res) => {
    const clave = String(req.params.clave);
    const r = await db.query<{
      clave: string;
      fecha: string;
      estado: string;
      respuesta_xml: string | null;
      callback_url: string | null;
    }>('SELECT clave, fecha, estado, respuesta_xml, callback_url FROM documents WHERE clave = $1', [clave]);
    const row = r.rows[0];
    if (!row) {
      const message = `No existe el recurso con Clave = [${clave}]`;
      throw new AppError('not_found', message, { headers: { 'X-Error-Cause': headerSafe(message) } });
    }
    res.json(toStatusBody(row));
  });

  mountComprobantesRoutes(router, authenticate, db);
  return router;
}

/**
 * Hacienda reports every refusal in X-Error-Cause, JSON parse errors included; mounted at app level on
 * /recepcion so it also sees the body parser's errors.
 */
export const recepcionParseErrorCause: ErrorRequestHandler = (err, _req, res, next) => {
  const status = (err as { status?: number }).status;
  if (!(err instanceof AppError) && typeof status === 'number' && status < 500) {
    res.setHeader('X-Error-Cause', 'El cuerpo de la solicitud no es JSON valido');
    res.setHeader('validation-exception', 'true');
  }
  next(err);
};
