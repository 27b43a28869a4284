// `pnpm admin <command>`: the admin API from a terminal. It calls the running auth-server at AUTH_URL
// (default http://localhost:4000) with AUTH_ADMIN_TOKEN (or, in development, the token the launcher keeps
// in <DATA_DIR>/dev-admin-token), so the server stays the only writer of its database.
//   client:create --base acme [--password …] [--reclaim]   (a strong password is generated and printed when
//                                               omitted; --reclaim: a deleted client's base, with its data)
//   client:list                                 (every client, by base; deleted ones are not listed)
//   client:delete --base acme                   (the base stays reserved: its tenant data is kept)
//   client:disable --base acme | client:enable --base acme   (disabling revokes every token the client holds)
//   client:password --base acme [--password …]   (revokes every token issued before; generated when omitted)
//   keys:rotate
//   keys:retire --kid <kid>                     (a leaked key: out of the JWKS now, next key signs)
//   keys:list
//   keys:export-public --out key.pem [--kid <kid> | --all]   (SPKI PEM: the current key; the published key
//                                               <kid>; or every published key, one PEM after another, for
//                                               AUTH_PUBLIC_KEY_PATH to verify across a rotation)
//   tokens:revoke --jti <jti> [--exp <unix seconds>]
//   apikey:create --base acme --name ERP --scopes documents:write,documents:read   (the key is printed once)
//   apikey:list --base acme | apikey:revoke --base acme --id <id>   (revoking also revokes its tokens)
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClientList, ClientView, SigningKeyList, SigningKeyView } from '@cr/contracts';
import { REPO_ROOT } from './config';

/** Flags that take no value: present means yes. */
const SWITCHES = new Set(['reclaim', 'all']);

function parseArgs(argv: string[]): { command: string | undefined; flags: Record<string, string> } {
  const [command, ...rest] = argv;
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1);
    else if (SWITCHES.has(arg.slice(2))) flags[arg.slice(2)] = 'true';
    else {
      const value = rest[i + 1];
      if (value === undefined || value.startsWith('--')) throw new Error(`${arg} needs a value`);
      flags[arg.slice(2)] = value;
      i++;
    }
  }
  return { command, flags };
}

function adminToken(): string {
  if (process.env.AUTH_ADMIN_TOKEN) return process.env.AUTH_ADMIN_TOKEN;
  const file = join(
    resolve(process.env.DATA_DIR ?? join(REPO_ROOT, '.data', 'auth-server')),
    'dev-admin-token',
  );
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error('AUTH_ADMIN_TOKEN is not set');
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const url = (process.env.AUTH_URL ?? 'http://localhost:4000').replace(/\/$/, '') + path;
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${adminToken()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const msg = (parsed as { message?: string } | undefined)?.message ?? res.statusText;
    throw new Error(`${method} ${path} → ${res.status}: ${msg}`);
  }
  return parsed;
}

function need(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (!v) throw new Error(`--${name} is required`);
  return v;
}

// pnpm runs this script inside apps/auth-server; a relative path on the command line means the caller's
// directory, which pnpm passes as INIT_CWD.
function userPath(file: string): string {
  return resolve(process.env.INIT_CWD ?? process.cwd(), file);
}

const USAGE = `usage: pnpm admin <command>
  client:create --base <base> [--password <password>] [--reclaim]
  client:list
  client:delete --base <base>
  client:disable --base <base> | client:enable --base <base>
  client:password --base <base> [--password <password>]
  keys:rotate | keys:list | keys:export-public --out <file.pem> [--kid <kid> | --all]
  keys:retire --kid <kid>
  tokens:revoke --jti <jti> [--exp <unix seconds>]
  apikey:create --base <base> --name <name> --scopes <scope,scope…>
  apikey:list --base <base> | apikey:revoke --base <base> --id <id>
env: AUTH_URL (default http://localhost:4000), AUTH_ADMIN_TOKEN`;

async function run(argv: string[]): Promise<void> {
  const { command, flags } = parseArgs(argv);
  const out = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
  switch (command) {
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    case 'client:create': {
      const generated = flags.password === undefined;
      const password = flags.password ?? randomBytes(24).toString('base64url');
      const reclaim = flags.reclaim === 'true';
      out(
        await call('POST', '/admin/clients', {
          base: need(flags, 'base'),
          password,
          ...(reclaim ? { reclaim } : {}),
        }),
      );
      if (generated) process.stdout.write(`password (shown once): ${password}\n`);
      return;
    }
    case 'client:list': {
      // Every page, so the operator gets one list.
      const clients: ClientView[] = [];
      let after: string | null = null;
      do {
        const page = (await call(
          'GET',
          `/admin/clients?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        )) as ClientList;
        clients.push(...page.clients);
        after = page.next;
      } while (after);
      out({ clients });
      return;
    }
    case 'client:delete':
      await call('DELETE', `/admin/clients/${encodeURIComponent(need(flags, 'base'))}`);
      process.stdout.write(
        `deleted ${flags.base}; its base stays reserved for its tenant data (client:create --reclaim gives it to a new client)\n`,
      );
      return;
    case 'client:disable':
    case 'client:enable':
      out(
        await call('PATCH', `/admin/clients/${encodeURIComponent(need(flags, 'base'))}`, {
          disabled: command === 'client:disable',
        }),
      );
      return;
    case 'client:password': {
      const generated = flags.password === undefined;
      const password = flags.password ?? randomBytes(24).toString('base64url');
      out(await call('PATCH', `/admin/clients/${encodeURIComponent(need(flags, 'base'))}`, { password }));
      if (generated) process.stdout.write(`password (shown once): ${password}\n`);
      return;
    }
    case 'keys:retire':
      out(await call('POST', `/admin/keys/${encodeURIComponent(need(flags, 'kid'))}/retire`));
      return;
    case 'keys:rotate':
      out(await call('POST', '/admin/keys/rotate'));
      return;
    case 'keys:list':
      out(await call('GET', '/admin/keys'));
      return;
    case 'keys:export-public': {
      const file = userPath(need(flags, 'out'));
      if (flags.all === 'true' && flags.kid) throw new Error('--kid and --all exclude each other');
      const list = (await call('GET', '/admin/keys')) as SigningKeyList;
      let keys: SigningKeyView[];
      if (flags.all === 'true') {
        // Every published key, previous ones included while their tokens may live: a file exported at any
        // moment (before a rotation or just after one) verifies every token the auth-server may have out.
        keys = list.keys;
      } else if (flags.kid !== undefined) {
        const named = list.keys.find((k) => k.kid === flags.kid);
        if (!named) throw new Error(`no published signing key "${flags.kid}" (keys:list shows them)`);
        keys = [named];
      } else {
        const current = list.keys.find((k) => k.status === 'current');
        if (!current) throw new Error('the server has no current signing key');
        keys = [current];
      }
      if (keys.length === 0) throw new Error('the server publishes no signing key');
      writeFileSync(file, keys.map((k) => k.publicKeyPem).join(''));
      const named = keys.map((k) => `${k.kid} (${k.status})`).join(', ');
      process.stdout.write(`wrote the public key${keys.length > 1 ? 's' : ''} ${named} to ${file}\n`);
      return;
    }
    case 'tokens:revoke': {
      const exp = flags.exp === undefined ? undefined : Number(flags.exp);
      if (exp !== undefined && !Number.isInteger(exp)) throw new Error('--exp must be Unix seconds');
      out(await call('POST', '/admin/tokens/revoke', { jti: need(flags, 'jti'), ...(exp ? { exp } : {}) }));
      return;
    }
    case 'apikey:create': {
      const scopes = need(flags, 'scopes')
        .split(',')
        .map((scope) => scope.trim());
      const path = `/admin/clients/${encodeURIComponent(need(flags, 'base'))}/api-keys`;
      out(await call('POST', path, { name: need(flags, 'name'), scopes }));
      process.stdout.write('the key above is shown once: store it now\n');
      return;
    }
    case 'apikey:list':
      out(await call('GET', `/admin/clients/${encodeURIComponent(need(flags, 'base'))}/api-keys`));
      return;
    case 'apikey:revoke': {
      const base = encodeURIComponent(need(flags, 'base'));
      out(await call('DELETE', `/admin/clients/${base}/api-keys/${encodeURIComponent(need(flags, 'id'))}`));
      return;
    }
    default:
      throw new Error(command ? `unknown command "${command}"\n${USAGE}` : USAGE);
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`admin: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
