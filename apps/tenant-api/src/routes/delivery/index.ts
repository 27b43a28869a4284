// The delivery settings routes (branding of the PDFs), mounted under the authenticated /api router.
import type { MarcaConfigResponse } from '@cr/contracts';
import type { Db } from '@cr/service-kit';
import type { RequestHandler, Router } from 'express';
import { configureBranding } from '../../delivery/configure-branding';

export interface DeliveryRouteDeps {
  db: Db;
  now: () => Date;
}

function configurarMarca(deps: DeliveryRouteDeps): RequestHandler {
  return async (req, res) => {
    const data = await configureBranding(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: MarcaConfigResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}

export function mountDeliveryRoutes(api: Router, deps: DeliveryRouteDeps): void {
  api.post('/configurar/marca', configurarMarca(deps));
}
