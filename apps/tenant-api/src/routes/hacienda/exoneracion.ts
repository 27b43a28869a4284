// POST /api/hacienda/exoneracion (spec endpoint 7): an exoneration authorization as Hacienda holds it.
import { ExoneracionQuery, type ExoneracionResponse } from '@cr/contracts';
import { parseBody } from '@cr/service-kit';
import type { RequestHandler } from 'express';
import type { LookupDeps } from '../../lookups/lookup-deps';
import { lookUpExoneration } from '../../lookups/exoneration';

export function consultarExoneracion(deps: LookupDeps): RequestHandler {
  return async (req, res) => {
    const { exoneracion } = parseBody(ExoneracionQuery, req.body);
    const data = await lookUpExoneration(deps, { tenantId: res.locals.tenantId, exoneracion });
    const body: ExoneracionResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}
