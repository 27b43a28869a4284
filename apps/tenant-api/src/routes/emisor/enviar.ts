// POST /api/enviar/emisor (spec endpoint 4): registers an issuer of the tenant.
import type { EmisorWriteResponse } from '@cr/contracts';
import type { RequestHandler } from 'express';
import type { IssuerDeps } from '../../emisor/issuer-deps';
import { registerIssuer } from '../../emisor/register-issuer';

export function enviarEmisor(deps: IssuerDeps): RequestHandler {
  return async (req, res) => {
    const result = await registerIssuer(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: EmisorWriteResponse = {
      status: 'success',
      message: result.created
        ? `issuer ${result.identificacion} registered`
        : `issuer ${result.identificacion} was already registered with the same data`,
      ...(result.warnings.length ? { warnings: result.warnings } : {}),
    };
    res.status(200).json(body);
  };
}
