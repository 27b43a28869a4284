// POST /api/hacienda/cabys (spec endpoint 8): CABYS codes for a product or service name, best first.
import { CabysQuery, type CabysResponse } from '@cr/contracts';
import { AppError, parseBody } from '@cr/service-kit';
import type { RequestHandler } from 'express';
import type { LookupDeps } from '../../lookups/lookup-deps';
import { lookUpForTenant } from '../../lookups/tenant-lookup-limit';

export function searchCabys(deps: Pick<LookupDeps, 'cabys' | 'db' | 'lookupLimiter'>): RequestHandler {
  return async (req, res) => {
    const { name, limite } = parseBody(CabysQuery, req.body);
    if (name.trim() === '') {
      throw new AppError('bad_request', 'name: must contain a search text, not only spaces', {
        details: [{ path: 'name', reason: 'must contain a search text, not only spaces' }],
      });
    }
    // The local catalogue costs Hacienda nothing; only the fallback's calls that reach Hacienda (not its
    // cached answers) count against the tenant's lookups, and they wait in the tenant's lane (ADR 0063).
    const items = await lookUpForTenant(deps, res.locals.tenantId, ({ beforeRequest, lane }) =>
      deps.cabys.search(name, { limit: limite ?? 50, ...(beforeRequest ? { beforeRequest } : {}), lane }),
    );
    const body: CabysResponse = {
      status: 'success',
      data: items.map((i) => ({ codigo: i.codigo, descripcion: i.descripcion, impuesto: i.impuesto })),
    };
    res.status(200).json(body);
  };
}
