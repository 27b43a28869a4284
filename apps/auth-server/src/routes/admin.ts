// The admin API under /admin, guarded by `Authorization: Bearer AUTH_ADMIN_TOKEN`. When no admin token is
// configured the whole API answers 404 exactly like an unknown route, so its existence is not advertised.
// The token comparison is constant-time (both sides hashed to a fixed length first).
import { createHash, timingSafeEqual } from 'node:crypto';
import { type Express, type RequestHandler, Router } from 'express';
import {
  type ApiKeyList,
  BASE_PATTERN,
  CLIENT_LIST_LIMIT,
  ClientListQuery,
  CreateApiKeyRequest,
  CreateClientRequest,
  type KeyRetiredResponse,
  RevokeTokenRequest,
  type SigningKeyList,
  UpdateClientRequest,
} from '@cr/contracts';
import { AppError, parseBody, parseNoFields, parseQuery } from '@cr/service-kit';
import { apiKeySubject } from '../api-keys';
import { deletedConflict } from '../clients';
import { toPem } from '../keys';
import type { AuthServices } from '../services';
import { bearerOf } from './logout';

const BASE = new RegExp(BASE_PATTERN);

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function requireAdmin(adminToken: string | undefined): RequestHandler {
  const expected = adminToken ? digest(adminToken) : undefined;
  return (req, _res, next) => {
    if (!expected)
      return next(new AppError('not_found', `no route for ${req.method} ${req.originalUrl.split('?')[0]}`));
    const presented = bearerOf(req.get('authorization'));
    if (!presented || !timingSafeEqual(digest(presented), expected)) {
      return next(
        new AppError('unauthorized', 'a valid admin token is required', {
          headers: { 'WWW-Authenticate': 'Bearer' },
        }),
      );
    }
    next();
  };
}

function baseParam(value: string | string[] | undefined): string {
  if (typeof value !== 'string' || !BASE.test(value))
    throw new AppError('bad_request', 'base: must be a DNS label (lower-case letters, digits, hyphen; 1-63)');
  return value;
}

export function mountAdmin(app: Express, s: AuthServices): void {
  const admin = Router();
  admin.use(requireAdmin(s.adminToken));

  admin.get('/clients', async (req, res) => {
    const { after, limit = CLIENT_LIST_LIMIT.default } = parseQuery(ClientListQuery, req.query, {
      after: 'must be a base (the `next` of the previous page)',
      limit: `must be an integer from 1 to ${CLIENT_LIST_LIMIT.max}`,
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json(await s.clients.list(after, limit));
  });

  admin.post('/clients', async (req, res) => {
    const { base, password, reclaim = false } = parseBody(CreateClientRequest, req.body);
    // Both refusals before the (deliberately slow) hash; create() checks again in its statement.
    const { taken, deletedAt } = await s.clients.baseStatus(base);
    if (taken) throw new AppError('conflict', `base: client "${base}" already exists`);
    if (deletedAt !== undefined && !reclaim) throw deletedConflict(base, deletedAt);
    const view = await s.clients.create(base, await s.hasher.hash(password), { reclaim });
    if (deletedAt !== undefined)
      res.locals.log.warn(
        'client created on a deleted base: it gets that tenant data, webhook endpoint and e-mail settings included',
        {
          base,
          deletedAt: new Date(deletedAt).toISOString(),
        },
      );
    else res.locals.log.info('client created', { base });
    res.status(201).json(view);
  });

  // Disabling, deleting and changing the password each end every token the client holds: a subject
  // revocation (tokens with iat before now) that the tenant-api applies on its next poll.
  admin.patch('/clients/:base', async (req, res) => {
    const base = baseParam(req.params.base);
    const { disabled, password } = parseBody(UpdateClientRequest, req.body);
    if (password !== undefined) {
      await s.clients.setPasswordHash(base, await s.hasher.hash(password));
      res.locals.log.info('client password changed', { base });
    }
    const view =
      disabled === undefined ? await s.clients.view(base) : await s.clients.setDisabled(base, disabled);
    if (disabled !== undefined)
      res.locals.log.info(disabled ? 'client disabled' : 'client enabled', { base });
    if (password !== undefined || disabled === true) {
      const r = await s.revocations.revokeSubject(base);
      res.locals.log.info('client tokens revoked', { base, notBefore: r.notBefore });
    }
    res.json(view);
  });

  // The base stays reserved (ClientStore.delete): its tenant data outlives the client (ADR 0065).
  admin.delete('/clients/:base', async (req, res) => {
    const base = baseParam(req.params.base);
    await s.clients.delete(base);
    const r = await s.revocations.revokeSubject(base);
    res.locals.log.info('client deleted', { base, notBefore: r.notBefore });
    res.status(204).end();
  });

  // API keys: the key is in the creation answer only (no-store); lists and revocations never hold it.
  admin.post('/clients/:base/api-keys', async (req, res) => {
    const base = baseParam(req.params.base);
    const { name, scopes } = parseBody(CreateApiKeyRequest, req.body);
    const created = await s.apiKeys.create(base, name, scopes);
    res.locals.log.info('api key created', { base, apiKey: created.id, scopes: created.scopes });
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(created);
  });

  admin.get('/clients/:base/api-keys', async (req, res) => {
    const base = baseParam(req.params.base);
    await s.clients.view(base);
    const body: ApiKeyList = { keys: await s.apiKeys.list(base) };
    res.setHeader('Cache-Control', 'no-store');
    res.json(body);
  });

  // Revoking a key also revokes the tokens issued for it (subject apikey:<id> on the revocation list).
  admin.delete('/clients/:base/api-keys/:id', async (req, res) => {
    const base = baseParam(req.params.base);
    const id = req.params.id;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{16}$/.test(id))
      throw new AppError('bad_request', 'id: must be an API key id');
    const view = await s.apiKeys.revoke(base, id);
    const r = await s.revocations.revokeSubject(apiKeySubject(id));
    res.locals.log.info('api key revoked', { base, apiKey: id, notBefore: r.notBefore });
    res.json(view);
  });

  admin.get('/keys', (_req, res) => {
    const body: SigningKeyList = {
      keys: s.keys.publishedKeys().map((k) => ({
        kid: k.kid,
        status: k.status,
        createdAt: new Date(k.createdAt).toISOString(),
        activatesAt: k.activatesAt === null ? null : new Date(k.activatesAt).toISOString(),
        publicKeyPem: toPem(k.publicKey),
      })),
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(body);
  });

  admin.post('/keys/rotate', async (req, res) => {
    // It takes no choice: a `kid` or a date sent here is refused, not silently ignored.
    parseNoFields(req.body);
    const r = await s.keys.rotate();
    res.locals.log.info('signing keys rotated', r);
    res.json({ activated: r.activated, activatesAt: new Date(r.activatesAt).toISOString(), next: r.next });
  });

  // A leaked key: out of the JWKS and unable to sign at once, its private half destroyed; if it was the
  // current key the published next key takes over now (verifiers already hold it) and a new next is made.
  admin.post('/keys/:kid/retire', async (req, res) => {
    const kid = req.params.kid;
    if (typeof kid !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(kid))
      throw new AppError('bad_request', 'kid: must be a key id (base64url)');
    parseNoFields(req.body);
    const r: KeyRetiredResponse = await s.keys.retire(kid);
    res.locals.log.warn('signing key retired', r);
    res.setHeader('Cache-Control', 'no-store');
    res.json(r);
  });

  admin.post('/tokens/revoke', async (req, res) => {
    const { jti, exp } = parseBody(RevokeTokenRequest, req.body);
    const r = await s.revocations.revoke(jti, exp);
    res.locals.log.info('token revoked', { jti });
    res.json(r);
  });

  app.use('/admin', admin);
}
