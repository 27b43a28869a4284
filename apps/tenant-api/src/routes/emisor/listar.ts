// GET /api/emisores: the tenant's issuers with their certificate's expiry.
import type { EmisorListResponse } from '@cr/contracts';
import type { RequestHandler } from 'express';
import type { IssuerDeps } from '../../emisor/issuer-deps';
import { listIssuers } from '../../emisor/list-issuers';

export function listarEmisores(deps: IssuerDeps): RequestHandler {
  return async (_req, res) => {
    const data = await listIssuers(deps, { tenantId: res.locals.tenantId });
    const body: EmisorListResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}
