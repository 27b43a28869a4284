// Where the CLI keeps its session: the service URLs, the client's base and its token with expiry (never
// the password), in $CR_CONFIG_DIR/session.json or ~/.config/cr-einvoice/session.json, readable by the
// user only.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Session {
  authUrl?: string;
  tenantUrl?: string;
  base?: string;
  token?: string;
  /** Unix seconds. */
  exp?: number;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CR_CONFIG_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'cr-einvoice');
}

function sessionFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'session.json');
}

export function readSession(env: NodeJS.ProcessEnv = process.env): Session {
  const file = sessionFile(env);
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Session;
  } catch {
    // A damaged file is treated as no session; the next login rewrites it.
    return {};
  }
}

export function writeSession(session: Session, env: NodeJS.ProcessEnv = process.env): void {
  mkdirSync(configDir(env), { recursive: true, mode: 0o700 });
  const file = sessionFile(env);
  writeFileSync(file, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function forgetToken(env: NodeJS.ProcessEnv = process.env): void {
  const { token: _t, exp: _e, ...rest } = readSession(env);
  if (Object.keys(rest).length) writeSession(rest, env);
  else rmSync(sessionFile(env), { force: true });
}
