// The Hacienda lookup routes (spec endpoints 7 and 8, and the taxpayer lookup), under the authenticated /api.
import type { Router } from 'express';
import type { LookupDeps } from '../../lookups/lookup-deps';
import { searchCabys } from './cabys';
import { consultarContribuyente } from './contribuyente';
import { consultarExoneracion } from './exoneracion';

export function mountHaciendaRoutes(api: Router, deps: LookupDeps): void {
  api.post('/hacienda/cabys', searchCabys(deps));
  api.post('/hacienda/exoneracion', consultarExoneracion(deps));
  api.post('/hacienda/contribuyente', consultarContribuyente(deps));
}
