// The receiving routes (issue 13), mounted under the authenticated /api router: upload and list supplier
// documents, their detail and downloads, the receiver's answer (MensajeReceptor) and the import from
// Hacienda. Thin: each calls one use case in src/recepcion/.
import type {
  RecepcionDocumentResponse,
  RecepcionListResponse,
  RecepcionRespuestaResponse,
  RecepcionSincronizarResponse,
} from '@cr/contracts';
import type { RequestHandler, Router } from 'express';
import { checkClave } from '../../documents/get-document';
import { answerReceived } from '../../recepcion/answer-received';
import { getReceived, getReceivedXml, listReceived } from '../../recepcion/list-received';
import { uploadReceivedDocument } from '../../recepcion/receive-document';
import type { RecepcionDeps } from '../../recepcion/recepcion-deps';
import { toReceivedData } from '../../recepcion/received-view';
import { synchronizeReceived } from '../../recepcion/synchronize';

function recibir(deps: RecepcionDeps): RequestHandler {
  return async (req, res) => {
    const result = await uploadReceivedDocument(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: RecepcionDocumentResponse = { status: 'success', data: result.data };
    res.status(result.created ? 201 : 200).json(body);
  };
}

function listar(deps: RecepcionDeps): RequestHandler {
  return async (req, res) => {
    const page = await listReceived(deps, {
      tenantId: res.locals.tenantId,
      query: req.query as Record<string, unknown>,
    });
    const body: RecepcionListResponse = { status: 'success', ...page };
    res.status(200).json(body);
  };
}

function detalle(deps: RecepcionDeps): RequestHandler {
  return async (req, res) => {
    const row = await getReceived(deps, {
      tenantId: res.locals.tenantId,
      clave: checkClave(String(req.params.clave)),
    });
    const body: RecepcionDocumentResponse = { status: 'success', data: toReceivedData(row) };
    res.status(200).json(body);
  };
}

function descargar(deps: RecepcionDeps, which: 'xml' | 'respuesta-hacienda'): RequestHandler {
  return async (req, res) => {
    const clave = checkClave(String(req.params.clave));
    const xml = await getReceivedXml(deps, { tenantId: res.locals.tenantId, clave, which });
    const name = which === 'xml' ? `${clave}.xml` : `${clave}_respuesta_hacienda.xml`;
    res.setHeader('Content-Type', 'application/xml; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
    res.status(200).send(xml);
  };
}

function responder(deps: RecepcionDeps): RequestHandler {
  return async (req, res) => {
    const clave = checkClave(String(req.params.clave));
    const { data, created } = await answerReceived(deps, {
      tenantId: res.locals.tenantId,
      clave,
      body: req.body,
    });
    const body: RecepcionRespuestaResponse = {
      status: 'success',
      message: created
        ? `MensajeReceptor ${data.consecutivo} signed; Hacienda's answer will follow by webhook`
        : `MensajeReceptor ${data.consecutivo} was already signed for this same request (${data.estado}); nothing was signed again`,
      data,
    };
    res.status(202).json(body);
  };
}

function sincronizar(deps: RecepcionDeps): RequestHandler {
  return async (req, res) => {
    const data = await synchronizeReceived(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: RecepcionSincronizarResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}

export function mountRecepcionRoutes(api: Router, deps: RecepcionDeps): void {
  api.post('/recepcion/documentos', recibir(deps));
  api.get('/recepcion/documentos', listar(deps));
  api.get('/recepcion/documentos/:clave', detalle(deps));
  api.get('/recepcion/documentos/:clave/xml', descargar(deps, 'xml'));
  api.get('/recepcion/documentos/:clave/respuesta-hacienda', descargar(deps, 'respuesta-hacienda'));
  api.post('/recepcion/documentos/:clave/respuesta', responder(deps));
  api.post('/recepcion/sincronizar', sincronizar(deps));
}
