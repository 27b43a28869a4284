// Development convenience: a setting that must be secret in production (SECRETS_KEY, admin tokens) is
// generated once and kept in the data directory, with a loud warning, when the environment does not set it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from './logger';

export function loadOrCreateDevSecret(
  file: string,
  generate: () => string = () => randomBytes(32).toString('base64url'),
  logger?: Logger,
  settingName = 'secret',
): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const value = generate();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  logger?.warn(
    `DEVELOPMENT ONLY: ${settingName} was not set; generated one in ${file}. Set it in production.`,
  );
  return value;
}
