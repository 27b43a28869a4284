// The tenant is the left-most label of the request's host under TENANT_BASE_DOMAIN (`acme.localhost` →
// `acme`). Any other host shape is refused with 404 before the body is read, so an unknown host costs
// nothing and reveals nothing about which tenants exist.
import { AppError } from '@cr/service-kit';
import type { Request, RequestHandler } from 'express';

declare global {
  namespace Express {
    interface Locals {
      /** The tenant named by the host; set by resolveTenant for every non-health request. */
      tenantId: string;
    }
  }
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export interface TenantResolutionOptions {
  baseDomain: string;
}

/** `acme.localhost:4001` under `localhost` → `acme`; anything else → undefined. */
export function tenantFromHost(host: string | undefined, baseDomain: string): string | undefined {
  if (!host) return undefined;
  const name = host
    .trim()
    .toLowerCase()
    .replace(/:\d{1,5}$/, '')
    .replace(/\.$/, '');
  const suffix = `.${baseDomain.toLowerCase()}`;
  if (!name.endsWith(suffix)) return undefined;
  const label = name.slice(0, -suffix.length);
  return LABEL.test(label) ? label : undefined;
}

/**
 * express's `req.host`: X-Forwarded-Host only when the peer is a trusted proxy under the app's `trust proxy`
 * (TRUST_PROXY), else the Host header. The gateway overwrites X-Forwarded-Host, so a client's own copy
 * never reaches us through it; reached directly, the peer is not trusted and the header is ignored.
 */
function hostOf(req: Request): string | undefined {
  return req.host;
}

export function resolveTenant(options: TenantResolutionOptions): RequestHandler {
  return (req, res, next) => {
    const tenantId = tenantFromHost(hostOf(req), options.baseDomain);
    if (!tenantId) {
      next(new AppError('not_found', 'unknown host'));
      return;
    }
    res.locals.tenantId = tenantId;
    next();
  };
}
