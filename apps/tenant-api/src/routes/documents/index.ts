// The document routes: POST /api/enviar/items (spec endpoint 3), POST /api/consultar/documento, the list
// GET /api/documentos and the downloads GET /api/descargar/{clave}/xml, /respuesta and /pdf, mounted under
// the authenticated /api router.
import {
  DocumentQuery,
  type DocumentQueryResponse,
  type EnviarItemsResponse,
  PDF_FORMATOS,
} from '@cr/contracts';
import type { PdfLayout } from '@cr/pdf';
import { AppError, parseBody } from '@cr/service-kit';
import type { RequestHandler, Router } from 'express';
import { hashRequestBody } from '../../documents/canonical-hash';
import { checkClave, getDocument, getDocumentXml } from '../../documents/get-document';
import { readIdempotencyKey, withIdempotencyKey } from '../../documents/idempotency-keys';
import { submitDocument } from '../../documents/submit-document';
import { type PdfDownloadDeps, renderDocumentPdf } from '../../delivery/render-document-pdf';
import type { SubmissionDeps } from '../../documents/submission-deps';
import type { TenantConcurrency } from '../../tenancy/tenant-concurrency';
import { listarDocumentos } from './listar';

function enviarItems(deps: DocumentRouteDeps): RequestHandler {
  return async (req, res) => {
    const tenantId = res.locals.tenantId;
    const key = readIdempotencyKey(req.get('idempotency-key'));
    // Refused before any work (429) when the tenant already has SUBMISSIONS_PER_TENANT in progress here.
    const run = async () => {
      const result = await submitDocument(deps, { tenantId, body: req.body });
      const body: EnviarItemsResponse = {
        status: 'success',
        message: result.created
          ? `document ${result.clave} received; Hacienda's answer will follow`
          : `document ${result.clave} had already been received with the same body`,
        clave: result.clave,
      };
      return { status: 200, body };
    };
    const out = await deps.submissions.run(tenantId, () =>
      key
        ? withIdempotencyKey(deps, { tenantId, key, requestHash: hashRequestBody(req.body ?? null) }, run)
        : run(),
    );
    res.status(out.status).json(out.body);
  };
}

function consultarDocumento(deps: SubmissionDeps): RequestHandler {
  return async (req, res) => {
    const { clave } = parseBody(DocumentQuery, req.body);
    const data = await getDocument(deps, { tenantId: res.locals.tenantId, clave });
    const body: DocumentQueryResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}

function descargar(deps: SubmissionDeps, which: 'xml' | 'respuesta'): RequestHandler {
  return async (req, res) => {
    const clave = checkClave(String(req.params.clave));
    const { xml, fileName } = await getDocumentXml(deps, { tenantId: res.locals.tenantId, clave, which });
    res.setHeader('Content-Type', 'application/xml; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
    res.status(200).send(xml);
  };
}

function readFormato(query: Record<string, unknown>): PdfLayout | undefined {
  const extra = Object.keys(query).filter((k) => k !== 'formato');
  if (extra.length > 0) throw new AppError('bad_request', `${extra[0]}: unknown query parameter`);
  const formato = query.formato;
  if (formato === undefined) return undefined;
  if (typeof formato !== 'string' || !(PDF_FORMATOS as readonly string[]).includes(formato)) {
    throw new AppError('bad_request', `formato: must be one of ${PDF_FORMATOS.join(', ')}`);
  }
  return formato as PdfLayout;
}

export interface DocumentRouteDeps extends SubmissionDeps {
  pdfRenders: PdfDownloadDeps['pdfRenders'];
  /** SUBMISSIONS_PER_TENANT: submissions one tenant may have in progress at once in this process. */
  submissions: Pick<TenantConcurrency, 'run'>;
}

function descargarPdf(deps: DocumentRouteDeps): RequestHandler {
  return async (req, res) => {
    const clave = checkClave(String(req.params.clave));
    const layout = readFormato(req.query as Record<string, unknown>);
    const pdf = await renderDocumentPdf(deps, {
      tenantId: res.locals.tenantId,
      clave,
      ...(layout ? { layout } : {}),
    });
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `attachment; filename="${clave}.pdf"`);
    res.status(200).send(pdf);
  };
}

export function mountDocumentRoutes(api: Router, deps: DocumentRouteDeps): void {
  api.post('/enviar/items', enviarItems(deps));
  api.post('/consultar/documento', consultarDocumento(deps));
  api.get('/documentos', listarDocumentos(deps));
  api.get('/descargar/:clave/xml', descargar(deps, 'xml'));
  api.get('/descargar/:clave/respuesta', descargar(deps, 'respuesta'));
  api.get('/descargar/:clave/pdf', descargarPdf(deps));
}
