// POST /login {base, password} or {base, apiKey} → {token, expires_in, token_type}. Unknown client, wrong
// password or key, revoked key and disabled client all take the same path (one failure record; an argon2
// verification for passwords) and get the same bytes back; the 401 body deliberately carries no requestId (it is in the X-Request-Id header) so the
// bodies are byte-identical.
import { createHash } from 'node:crypto';
import type { Express, Response } from 'express';
import { BASE_PATTERN, LoginRequest, type LoginResponse, TOKEN_LIFETIME_SECONDS } from '@cr/contracts';
import { AppError, metrics, parseBody } from '@cr/service-kit';
import type { AuthServices } from '../services';
import { throttleAddress } from '../throttle-address';

export const INVALID_CREDENTIALS_BODY = JSON.stringify({
  error: 'invalid_credentials',
  message: 'base or password is incorrect',
});

function sendInvalidCredentials(res: Response): void {
  res.status(401).type('application/json').setHeader('Cache-Control', 'no-store');
  res.end(INVALID_CREDENTIALS_BODY);
}

const BASE_LABEL = new RegExp(BASE_PATTERN);

/**
 * Every existing client's base is a DNS label. Anything else cannot match a client, and may hold bytes the
 * database refuses in text (NUL), so it is never sent to SQL: the lookup is skipped and the throttle counts
 * it under a digest.
 */
function throttleKeyOf(base: string): { key: string; canExist: boolean } {
  if (BASE_LABEL.test(base)) return { key: base, canExist: true };
  return { key: `~${createHash('sha256').update(base, 'utf8').digest('base64url')}`, canExist: false };
}

export function mountLogin(app: Express, s: AuthServices): void {
  app.post('/login', async (req, res) => {
    const { base, password, apiKey } = parseBody(LoginRequest, req.body);
    if (password === undefined && apiKey === undefined)
      throw new AppError('bad_request', 'password: is required');
    if (password !== undefined && apiKey !== undefined)
      throw new AppError('bad_request', 'apiKey: send either password or apiKey, not both');
    // An IPv6 client counts by its /64: it can pick any address in it for each attempt.
    const ip = throttleAddress(req.ip ?? 'unknown');
    const { key, canExist } = throttleKeyOf(base);
    let decision: Awaited<ReturnType<typeof s.throttle.check>>;
    try {
      decision = await s.throttle.check(key, ip);
    } catch (err) {
      metrics.auth.logins.inc({ outcome: 'throttled' });
      throw err;
    }
    if (decision.delayMs > 0) {
      metrics.auth.logins.inc({ outcome: 'slowed' });
      // Its base is under a many-address attack and this pair has failed without ever succeeding: slowed,
      // not refused, so a real client typing its password wrong from a new place still gets in.
      res.locals.log.info('login slowed: base under attack', {
        base: canExist ? base : key,
        ms: decision.delayMs,
      });
      await new Promise((r) => setTimeout(r, decision.delayMs));
    }

    const client = canExist ? await s.clients.find(base) : undefined;
    let ok = false;
    let grant: Awaited<ReturnType<typeof s.apiKeys.authenticate>>;
    if (apiKey !== undefined) {
      // A key is 256 random bits checked by digest: no argon2 here, so key logins cannot be made expensive.
      grant = client ? await s.apiKeys.authenticate(base, apiKey) : undefined;
      ok = grant !== undefined && client !== undefined && !client.disabled;
    } else if (client)
      ok = (await s.hasher.verify(client.passwordHash, password as string)) && !client.disabled;
    else await s.hasher.verifyDummy(password as string);

    if (!ok || !client) {
      await s.throttle.recordFailure(key, ip);
      metrics.auth.logins.inc({ outcome: 'invalid' });
      res.locals.log.info('login refused', { base: canExist ? base : key });
      sendInvalidCredentials(res);
      return;
    }

    await s.throttle.recordSuccess(key, ip);
    metrics.auth.logins.inc({ outcome: 'success' });
    if (password !== undefined && s.hasher.needsRehash(client.passwordHash)) {
      // Parameters changed since this hash was made: upgrade it now that the password is known. Off the
      // response path; a failure only means the upgrade waits for the next login.
      void s.hasher
        .hash(password)
        .then((h) => s.clients.updatePasswordHash(base, client.passwordHash, h))
        .then(() => res.locals.log.info('password hash upgraded', { base }))
        .catch((err: unknown) => res.locals.log.warn('password rehash failed', { base, err }));
    }
    const issued = s.tokens.issue(base, client.notBefore, grant);
    res.locals.log.info('login', { base, jti: issued.claims.jti, kid: issued.kid, apiKey: grant?.id });
    const body: LoginResponse = {
      token: issued.token,
      expires_in: TOKEN_LIFETIME_SECONDS,
      token_type: 'Bearer',
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(body);
  });
}
