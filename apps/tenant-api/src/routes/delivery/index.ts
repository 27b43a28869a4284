// The delivery routes (branding of the PDFs, the tenant's SMTP server, resending the receptor's e-mail),
// mounted under the authenticated /api router.
import type { CorreoConfigResponse, CorreoResendResponse, MarcaConfigResponse } from '@cr/contracts';
import type { Db } from '@cr/service-kit';
import type { RequestHandler, Router } from 'express';
import { type BrandingDeps, configureBranding } from '../../delivery/configure-branding';
import { configureMail } from '../../delivery/configure-mail';
import { getMail } from '../../delivery/get-mail';
import type { MailDeps } from '../../delivery/mail-deps';
import { type ResendMailDeps, resendMail } from '../../delivery/resend-mail';

export interface DeliveryRouteDeps extends MailDeps {
  db: Db;
  now: () => Date;
  brandingWriteLimiter: BrandingDeps['brandingWriteLimiter'];
  mailResendLimiter: ResendMailDeps['mailResendLimiter'];
  mailNewAddressLimiter: ResendMailDeps['mailNewAddressLimiter'];
}

function configurarMarca(deps: DeliveryRouteDeps): RequestHandler {
  return async (req, res) => {
    const data = await configureBranding(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: MarcaConfigResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}

function configurarCorreo(deps: DeliveryRouteDeps): RequestHandler {
  return async (req, res) => {
    const data = await configureMail(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: CorreoConfigResponse = { status: 'success', data };
    res.status(200).json(body);
  };
}

function consultarCorreo(deps: DeliveryRouteDeps): RequestHandler {
  return async (req, res) => {
    const body: CorreoConfigResponse = {
      status: 'success',
      data: await getMail(deps, { tenantId: res.locals.tenantId, body: req.body }),
    };
    res.status(200).json(body);
  };
}

function reenviarCorreo(deps: DeliveryRouteDeps): RequestHandler {
  return async (req, res) => {
    const { envioId, clave } = await resendMail(deps, { tenantId: res.locals.tenantId, body: req.body });
    const body: CorreoResendResponse = {
      status: 'success',
      message: `the e-mail of ${clave} is queued`,
      data: { envioId },
    };
    res.status(200).json(body);
  };
}

export function mountDeliveryRoutes(api: Router, deps: DeliveryRouteDeps): void {
  api.post('/configurar/marca', configurarMarca(deps));
  api.post('/configurar/correo', configurarCorreo(deps));
  api.post('/consultar/correo', consultarCorreo(deps));
  api.post('/reenviar/correo', reenviarCorreo(deps));
}
