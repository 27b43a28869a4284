// GET /api/documentos: one page of the tenant's documents (filters and cursor in the query string).
import type { DocumentListResponse } from '@cr/contracts';
import type { RequestHandler } from 'express';
import type { IssuerDeps } from '../../emisor/issuer-deps';
import { listDocuments } from '../../documents/list-documents';

export function listarDocumentos(deps: Pick<IssuerDeps, 'db'>): RequestHandler {
  return async (req, res) => {
    const page = await listDocuments(deps, {
      tenantId: res.locals.tenantId,
      query: req.query as Record<string, unknown>,
    });
    const body: DocumentListResponse = { status: 'success', ...page };
    res.status(200).json(body);
  };
}
