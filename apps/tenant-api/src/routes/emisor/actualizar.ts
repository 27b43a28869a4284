// POST /api/actualizar/emisor (spec endpoint 5): replaces a registered issuer's data.
import type { EmisorWriteResponse } from '@cr/contracts';
import type { RequestHandler } from 'express';
import type { IssuerDeps } from '../../emisor/issuer-deps';
import { updateIssuer } from '../../emisor/update-issuer';

export function actualizarEmisor(deps: IssuerDeps): RequestHandler {
  return async (req, res) => {
    const result = await updateIssuer(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: EmisorWriteResponse = {
      status: 'success',
      message: `issuer ${result.identificacion} updated`,
      ...(result.warnings.length ? { warnings: result.warnings } : {}),
    };
    res.status(200).json(body);
  };
}
