// POST /api/consultar/emisor (spec endpoint 6): one issuer's public data.
import { EmisorQuery, type EmisorQueryResponse } from '@cr/contracts';
import { parseBody } from '@cr/service-kit';
import type { RequestHandler } from 'express';
import { getIssuer } from '../../emisor/get-issuer';
import type { IssuerDeps } from '../../emisor/issuer-deps';

export function consultarEmisor(deps: IssuerDeps): RequestHandler {
  return async (req, res) => {
    const { identificacion } = parseBody(EmisorQuery, req.body);
    const data = await getIssuer(deps, { tenantId: res.locals.tenantId, identificacion });
    const body: EmisorQueryResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}
