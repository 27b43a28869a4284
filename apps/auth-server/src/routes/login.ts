// POST /login {base, password} or {base, apiKey} → {token, expires_in, token_type}. Unknown client, wrong
// password or key, revoked key and disabled client all take the same path (one failure record; an argon2
// verification for passwords) and get the same bytes back; the 401 body deliberately carries no requestId (it is in the X-Request-Id header) so the
// bodies are byte-identical.
import { createHash } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { BASE_PATTERN, LoginRequest, type LoginResponse, TOKEN_LIFETIME_SECONDS } from '@cr/contracts';
import { AppError, metrics, parseBody } from '@cr/service-kit';
import type { ApiKeyRecord } from '../api-keys';
import type { ClientRecord } from '../clients';
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

/**
 * What the credential checked for `base` is still worth: the client's notBefore when the client still exists,
 * is enabled and still has the password hash that was verified (or, for a key, the key is still live);
 * undefined otherwise. A key login does not depend on the password: a password change revokes the key's
 * earlier tokens through the client's notBefore, not the key.
 */
async function currentEntitlement(
  s: AuthServices,
  base: string,
  verifiedHash: string,
  grant: ApiKeyRecord | undefined,
): Promise<{ notBefore: number | undefined } | undefined> {
  const fresh = await s.clients.find(base);
  if (!fresh || fresh.disabled) return undefined;
  if (grant ? !(await s.apiKeys.isLive(base, grant.id)) : fresh.passwordHash !== verifiedHash)
    return undefined;
  return { notBefore: fresh.notBefore };
}

/** What auth_logins_total counts a login as: exactly one per attempt that got past the request's shape. */
type LoginOutcome = 'success' | 'invalid' | 'throttled' | 'error';

interface LoginInput {
  base: string;
  password: string | undefined;
  apiKey: string | undefined;
}

export function mountLogin(app: Express, s: AuthServices): void {
  app.post('/login', async (req, res) => {
    const { base, password, apiKey } = parseBody(LoginRequest, req.body);
    if (password === undefined && apiKey === undefined)
      throw new AppError('bad_request', 'password: is required');
    if (password !== undefined && apiKey !== undefined)
      throw new AppError('bad_request', 'apiKey: send either password or apiKey, not both');
    // Each login is counted once, with how it ended: here and nowhere else.
    const outcome = await attemptLogin(s, req, res, { base, password, apiKey }).catch((err: unknown) => {
      // Only the throttle's 429 is throttling: a database or hash-queue failure counted as one made every
      // login of an outage look like password guessing (LoginThrottlingSurge).
      const failed: LoginOutcome =
        err instanceof AppError && err.code === 'too_many_requests' ? 'throttled' : 'error';
      metrics.auth.logins.inc({ outcome: failed });
      throw err;
    });
    metrics.auth.logins.inc({ outcome });
  });
}

async function attemptLogin(
  s: AuthServices,
  req: Request,
  res: Response,
  { base, password, apiKey }: LoginInput,
): Promise<'success' | 'invalid'> {
  // An IPv6 client counts by its /64: it can pick any address in it for each attempt.
  const ip = throttleAddress(req.ip ?? 'unknown');
  const { key, canExist } = throttleKeyOf(base);
  // A password attempt is counted against its pair before argon2 (so concurrent guesses cannot all pass
  // the check); a key attempt is not: 256 random bits cannot be guessed, and a fleet of workers behind one
  // address may log in with its key all at once.
  const charged = password !== undefined;
  const decision = await s.throttle.admit(key, ip, { charge: charged });
  let client: ClientRecord | undefined;
  let ok = false;
  let grant: ApiKeyRecord | undefined;
  try {
    if (decision.delayMs > 0) {
      // Counted apart: the login also ends as a success or a refusal in auth_logins_total.
      metrics.auth.loginsSlowed.inc();
      // Its base is under a many-address attack and this pair has failed without ever succeeding: slowed,
      // not refused, so a real client typing its password wrong from a new place still gets in.
      res.locals.log.info('login slowed: base under attack', {
        base: canExist ? base : key,
        ms: decision.delayMs,
      });
      await new Promise((r) => setTimeout(r, decision.delayMs));
    }

    client = canExist ? await s.clients.find(base) : undefined;
    if (apiKey !== undefined) {
      // A key is 256 random bits checked by digest: no argon2 here, so key logins cannot be made expensive.
      // Asked for every well-formed base, known or not, so the time taken does not tell which bases exist.
      grant = canExist ? await s.apiKeys.authenticate(base, apiKey) : undefined;
      ok = grant !== undefined && client !== undefined && !client.disabled;
    } else if (client)
      ok = (await s.hasher.verify(client.passwordHash, password as string)) && !client.disabled;
    else await s.hasher.verifyDummy(password as string);
  } catch (err) {
    // No verdict (hash queue full, thread lost, database): the charged attempt tested nothing, so it is
    // given back; otherwise a flood elsewhere would push a real client's retries into the waits.
    if (charged) await s.throttle.refund(key, ip).catch(() => undefined);
    throw err;
  }

  const refuse = async () => {
    await s.throttle.recordFailure(key, ip, { charged });
    res.locals.log.info('login refused', { base: canExist ? base : key });
    sendInvalidCredentials(res);
    return 'invalid' as const;
  };
  if (!ok || !client) return refuse();

  await s.throttle.recordSuccess(key, ip);
  // A key retired through another replica must not sign here (see KEY_VIEW_MAX_AGE_MS).
  await s.keys.ensureFresh();
  // The record was read before the password check, which can wait seconds in the hash queue: an admin may
  // have disabled, deleted or re-passworded the client (or revoked the key) since, and that revocation's
  // notBefore is already in the past of a token signed now. So the token is signed from a fresh read, with
  // the time taken before it: a change the read missed revokes from a second after that time. (A login that
  // races another one's hash upgrade sees a new hash too and is refused: rare, and the retry passes.)
  const issuedAt = s.now();
  const current = await currentEntitlement(s, base, client.passwordHash, grant);
  if (!current) return refuse();
  if (password !== undefined && s.hasher.needsRehash(client.passwordHash)) {
    // Parameters changed since this hash was made: upgrade it now that the password is known. Off the
    // response path; a failure only means the upgrade waits for the next login.
    void s.hasher
      .hash(password)
      .then((h) => s.clients.updatePasswordHash(base, client.passwordHash, h))
      .then(() => res.locals.log.info('password hash upgraded', { base }))
      .catch((err: unknown) => res.locals.log.warn('password rehash failed', { base, err }));
  }
  const issued = s.tokens.issue(base, current.notBefore, grant, issuedAt);
  res.locals.log.info('login', { base, jti: issued.claims.jti, kid: issued.kid, apiKey: grant?.id });
  const body: LoginResponse = {
    token: issued.token,
    expires_in: TOKEN_LIFETIME_SECONDS,
    token_type: 'Bearer',
  };
  res.setHeader('Cache-Control', 'no-store');
  res.json(body);
  return 'success';
}
