// cr login / cr logout.
import { createClient } from '@cr-einvoice/sdk';
import { localhostFetch } from '@cr-einvoice/sdk/localhost';
import { type OptionSpec, parse, str } from '../args';
import type { Context } from '../context';
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
  if (!base || !password) throw new UsageError(ctx.t('noSession'));
  const client = createClient({ authUrl, credentials: { base, password }, fetch: localhostFetch() });
  const token = await client.auth.login();
  const session = { ...readSession(ctx.env), authUrl, base, ...token };
  if (ctx.tenantUrl) session.tenantUrl = ctx.tenantUrl;
  writeSession(session, ctx.env);
  const exp = new Date(token.exp * 1000).toISOString();
  ctx.result({ base, exp, tenantUrl: session.tenantUrl ?? null }, () => [ctx.t('loggedIn', { base, exp })]);
}

export async function logout(ctx: Context, args: string[]): Promise<void> {
  parse(args, {});
  if (!ctx.session.token) throw new UsageError(ctx.t('noSession'));
  const client = createClient({
    ...(ctx.authUrl ? { authUrl: ctx.authUrl } : {}),
    token: ctx.session.token,
    fetch: localhostFetch(),
  });
  await client.auth.logout();
  forgetToken(ctx.env);
  ctx.result({ loggedOut: true }, () => [ctx.t('loggedOut')]);
}
