// POST /api/hacienda/contribuyente: a taxpayer in Hacienda's registry (name, regime, status, activities).
import { ContribuyenteQuery, type ContribuyenteResponse } from '@cr/contracts';
import { AppError, parseBody } from '@cr/service-kit';
import type { RequestHandler } from 'express';
import type { LookupDeps } from '../../lookups/lookup-deps';
import { lookUpTaxpayer, readTaxpayerId } from '../../lookups/taxpayer';

export function consultarContribuyente(deps: LookupDeps): RequestHandler {
  return async (req, res) => {
    const raw: unknown = req.body;
    // One readable reason for the id (the schema's string-or-number union would give three).
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
      const read = readTaxpayerId((raw as Record<string, unknown>).identificacion);
      if ('reason' in read) {
        throw new AppError('bad_request', `identificacion: ${read.reason}`, {
          details: [{ path: 'identificacion', reason: read.reason }],
        });
      }
    }
    const body = parseBody(ContribuyenteQuery, raw);
    const read = readTaxpayerId(body.identificacion);
    if ('reason' in read) throw new AppError('bad_request', `identificacion: ${read.reason}`);
    const data = await lookUpTaxpayer(deps, { tenantId: res.locals.tenantId, identificacion: read.id });
    const out: ContribuyenteResponse = { status: 'success', data };
    res.status(200).json(out);
  };
}
