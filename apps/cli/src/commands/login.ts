// cr login / cr logout.
import { AuthenticationError, TokenExpiredError, createClient, tokenExpiry } from '@cr-einvoice/sdk';
import { localhostFetch } from '@cr-einvoice/sdk/localhost';
import { type OptionSpec, parse, str } from '../args';
import type { Context } from '../context';
import { costaRicaTime } from '../costa-rica-time';
import { UsageError } from '../exit-codes';
import { prompt } from '../prompt';
import { forgetToken, readSession, writeSession } from '../session';

export const loginOptions: OptionSpec = { base: { type: 'string' }, password: { type: 'string' } };

export async function login(ctx: Context, args: string[]): Promise<void> {
  const parsed = parse(args, loginOptions);
  const authUrl = ctx.authUrl;
  if (!authUrl) throw new UsageError(ctx.t('needAuthUrl'));
  const base = str(parsed, 'base') ?? ctx.env.CR_BASE ?? ctx.session.base ?? (await prompt(ctx.t('askBase')));
  const password =
    str(parsed, 'password') ?? ctx.env.CR_PASSWORD ?? (await prompt(ctx.t('askPassword'), true));
  if (!base) throw new UsageError(ctx.t('missingBase'));
  if (!password) throw new UsageError(ctx.t('missingPassword'));
  const client = createClient({ authUrl, credentials: { base, password }, fetch: localhostFetch() });
  const token = await client.auth.login();
  const session = { ...readSession(ctx.env), authUrl, base, ...token };
  if (ctx.tenantUrl) session.tenantUrl = ctx.tenantUrl;
  writeSession(session, ctx.env);
  const exp = new Date(token.exp * 1000).toISOString();
  ctx.result({ base, exp, tenantUrl: session.tenantUrl ?? null }, () => [
    ctx.t('loggedIn', { base, exp: costaRicaTime(token.exp * 1000) }),
  ]);
}

export async function logout(ctx: Context, args: string[]): Promise<void> {
  parse(args, {});
  // Exit 3 as for every other command without a session.
  if (!ctx.session.token) throw new AuthenticationError('unauthorized', ctx.t('noSession'));
  const authUrl = ctx.authUrl;
  if (!authUrl) throw new UsageError(ctx.t('needAuthUrl'));
  const client = createClient({ authUrl, token: ctx.session.token, fetch: localhostFetch() });
  try {
    await client.auth.logout();
  } catch (err) {
    const ended = alreadyEnded(ctx, err);
    if (!ended) throw err;
    // Nothing left to revoke: the token is dead either way, so it is forgotten and logout has done its job.
    forgetToken(ctx.env);
    ctx.result({ loggedOut: true, alreadyExpired: true }, () => [ended]);
    return;
  }
  forgetToken(ctx.env);
  ctx.result({ loggedOut: true }, () => [ctx.t('loggedOut')]);
}

/**
 * What to say when the session ended before this logout, else undefined: the token expired (the SDK says so
 * before sending it), or the auth-server no longer accepts it (401: expired by its clock, or signed with a
 * key since retired; a token already revoked is answered 200, not 401).
 */
function alreadyEnded(ctx: Context, err: unknown): string | undefined {
  if (err instanceof TokenExpiredError) {
    // The expiry the SDK went by: the token's own.
    const exp = tokenExpiry(ctx.session.token ?? '') ?? ctx.session.exp;
    return ctx.t('loggedOutExpired', { exp: exp ? costaRicaTime(exp * 1000) : '?' });
  }
  if (err instanceof AuthenticationError && err.status === 401)
    return ctx.t('loggedOutRefused', { message: err.message });
  return undefined;
}
