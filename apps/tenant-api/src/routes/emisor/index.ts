// The issuer routes (spec endpoints 4, 5, 6) and the list of them, mounted under the authenticated /api router.
import type { Router } from 'express';
import type { IssuerDeps } from '../../emisor/issuer-deps';
import { actualizarEmisor } from './actualizar';
import { consultarEmisor } from './consultar';
import { enviarEmisor } from './enviar';
import { listarEmisores } from './listar';

export function mountEmisorRoutes(api: Router, deps: IssuerDeps): void {
  api.post('/enviar/emisor', enviarEmisor(deps));
  api.post('/actualizar/emisor', actualizarEmisor(deps));
  api.post('/consultar/emisor', consultarEmisor(deps));
  api.get('/emisores', listarEmisores(deps));
}
