// The tenant API's HTTP app: health and API docs → Hacienda's callback (no tenant, no JWT, body unread) → tenant
// from the host (refused before the body is read) → JSON body
// (256 KB: a .p12 in base64 fits, nothing much larger does) → Bearer auth on /api/* → routes → 404 →
// error handler; the dashboard's session (/app/session) and files (/app). createApp never listens; main.ts
// and the tests do.
import { buildTenantApiOpenApi } from '@cr/contracts';
import {
  type HealthCheck,
  type Logger,
  type TrustProxySetting,
  createHttpApp,
  jsonBody,
} from '@cr/service-kit';
import { type Express, type RequestHandler, Router } from 'express';
import { requireAuth } from './auth/require-auth';
import type { SubmissionDeps } from './documents/submission-deps';
import { haciendaCallbackRouter } from './hacienda/callback-route';
import type { LookupDeps } from './lookups/lookup-deps';
import { type DeliveryRouteDeps, mountDeliveryRoutes } from './routes/delivery';
import { type DocumentRouteDeps, mountDocumentRoutes } from './routes/documents';
import { docsRouter } from '@cr/service-kit';
import { mountEmisorRoutes } from './routes/emisor';
import { mountHaciendaRoutes } from './routes/hacienda';
import type { RecepcionDeps } from './recepcion/recepcion-deps';
import { mountRecepcionRoutes } from './routes/recepcion';
import { mountWebhookRoutes } from './routes/webhook';
import { dashboardRouter, findDashboardDir } from './dashboard/serve-dashboard';
import { mountSessionRoutes } from './routes/session';
import type { AuthServerClient } from './session/auth-server-client';
import { requireScope } from './auth/require-scope';
import { resolveTenant } from './tenancy/resolve-tenant';
import type { WebhookDeps } from './webhooks/webhook-deps';
import type { MailSettings } from './delivery/mail-deps';

export interface AppDeps extends SubmissionDeps, Omit<LookupDeps, 'hacienda'> {
  /** PDF_RENDERS_PER_TENANT: PDF downloads one tenant may have rendering at once. */
  pdfRenders: DocumentRouteDeps['pdfRenders'];
  /** SUBMISSIONS_PER_TENANT: submissions one tenant may have in progress at once. */
  submissions: DocumentRouteDeps['submissions'];
  /** BRANDING_WRITE_RATE_LIMIT: POST /api/configurar/marca per tenant. */
  brandingWriteLimiter: DeliveryRouteDeps['brandingWriteLimiter'];
  /** MAIL_RESEND_RATE_LIMIT: POST /api/reenviar/correo per tenant. */
  mailResendLimiter: DeliveryRouteDeps['mailResendLimiter'];
  /** MAIL_RESEND_NEW_ADDRESS_LIMIT: resends to addresses the document does not name, via the platform. */
  mailNewAddressLimiter: DeliveryRouteDeps['mailNewAddressLimiter'];
  /** The webhook use cases: target policy, timeout and the per-tenant replay limit. */
  webhooks: WebhookDeps;
  /** The platform's SMTP server, the SSRF policy of tenants' hosts, timeouts and retries. */
  mail: MailSettings;
  logger: Logger;
  /** `createHaciendaClients(...)`: submissions use its IdP and recepción, the lookups its public API. */
  hacienda: SubmissionDeps['hacienda'];
  /** Verifies Bearer tokens; a benchmark may pass one that skips the signature to measure its cost. */
  verifier: Pick<import('./auth/token-verifier').TokenVerifier, 'verify'>;
  baseDomain: string;
  /** `parseTrustProxy(TRUST_PROXY)`: req.ip and the tenant's host come from the gateway only. */
  trustProxy: TrustProxySetting;
  /** HEALTH_TOKEN: opens /health/details. */
  healthToken?: string | undefined;
  bodyLimit?: string | number;
  /** The receiving use cases; their upload route has its own body limit. */
  recepcion: RecepcionDeps;
  recepcionBodyLimit?: string | number;
  readiness?: Record<string, HealthCheck>;
  /** The auth-server the dashboard's sign-in and sign-out call (AUTH_SERVER_URL). */
  authServer: AuthServerClient;
  /** The built dashboard; default: found beside the bundle or in the workspace. */
  dashboardDir?: string | undefined;
}

/**
 * The upload's body is one object of strings: one `{`. The rest of the cap lets a body with a stray field reach
 * the schema's check, which names it; nothing under it costs the parser anything.
 */
export const UPLOAD_BODY_CONTAINERS = 16;

/**
 * The upload route's own body parser, 16 times the others' limit. The caller is authenticated and its API key's
 * scope checked first: an anonymous request, or a key that may only read, must not get megabytes parsed on the
 * event loop every tenant shares before it is refused. The /api router's requireAuth then sees the claims
 * already verified. The body is a few strings, so more than a few `{` or `[` is refused before it is parsed
 * (json-body.ts): 4 MB of nested arrays held the loop 330–550 ms (docs/security.md, found 2026-12-06).
 */
function recepcionUploadBody(limit: string | number, authenticate: RequestHandler): RequestHandler {
  const scope = requireScope('');
  const parse = jsonBody({
    limit,
    containers: {
      max: UPLOAD_BODY_CONTAINERS,
      shape: 'this route takes one object of strings (receptor, xml, respuestaHacienda)',
    },
  });
  return (req, res, next) => {
    if (req.method !== 'POST' || req.path !== '/api/recepcion/documentos') return next();
    authenticate(req, res, (err?: unknown) => {
      if (err) return next(err);
      scope(req, res, (denied?: unknown) => (denied ? next(denied) : parse(req, res, next)));
    });
  };
}

export function createApp(deps: AppDeps): Express {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.bodyLimit ?? '256kb',
    trustProxy: deps.trustProxy,
    healthToken: deps.healthToken,
    readiness: {
      database: async () => {
        await deps.db.ping();
        return undefined;
      },
      ...deps.readiness,
    },
    // The API documentation is public and served on any host, like the health routes: before the tenant
    // is resolved from the host. Hacienda's callback too: it carries no tenant host and no JWT.
    beforeBody: [
      docsRouter(buildTenantApiOpenApi({ baseDomain: deps.baseDomain }), 'tenant-api'),
      haciendaCallbackRouter(deps),
      resolveTenant({ baseDomain: deps.baseDomain }),
      // A supplier's XML in Base64 is larger than any other body: only its upload route reads this much.
      recepcionUploadBody(deps.recepcionBodyLimit ?? '4mb', requireAuth(deps.verifier)),
    ],
    routes(app) {
      const api = Router();
      // Every /api answer is a tenant's data (receptors' names and addresses, XML, PDFs): never stored by a
      // browser's cache, which the dashboard's cookie sessions on shared machines would otherwise fill.
      api.use((_req, res, next) => {
        res.setHeader('Cache-Control', 'no-store');
        next();
      });
      api.use(requireAuth(deps.verifier), requireScope());
      mountEmisorRoutes(api, deps);
      mountDocumentRoutes(api, deps);
      mountDeliveryRoutes(api, deps);
      mountHaciendaRoutes(api, deps);
      mountRecepcionRoutes(api, deps.recepcion);
      mountWebhookRoutes(api, deps.webhooks);
      app.use('/api', api);
      mountSessionRoutes(app, { authServer: deps.authServer, verifier: deps.verifier, now: deps.now });
      app.use('/app', dashboardRouter('dashboardDir' in deps ? deps.dashboardDir : findDashboardDir()));
    },
  });
}
