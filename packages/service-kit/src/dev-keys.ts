// Development convenience: a setting that must be secret in production (SECRETS_KEY, admin tokens) is
// generated once and kept in the data directory, with a loud warning, when the environment does not set it.
// What it seals (issuers' passwords and .p12, signing keys) can only be opened with that same value, so the
// file is written whole or not at all and flushed to disk before it is used: a crash right after the first
// start must leave either no file (a new value, nothing sealed yet) or the value, never an empty or cut file
// that a later start would read as another value or fail on obscurely.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Logger } from './logger';

/** A development secret's file that is there but does not hold a whole value. */
export class DevSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevSecretError';
  }
}

/** Flushes a directory's entries (a file created, linked or renamed in it); Windows cannot open one. */
function fsyncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Link failures that mean the file system has no hard links, where a rename has to do. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Writes `content` to `file` whole: a temporary file beside it (mode 0600), flushed, then linked to its name,
 * which fails if another process created the file meanwhile (its value wins: returns false), then the
 * directory flushed. Without hard links, a rename.
 */
function createDurably(file: string, content: string): boolean {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
    unlinkSync(temp);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (!NO_LINKS.has(code)) {
      unlinkSync(temp);
      if (code === 'EEXIST') return false;
      throw err;
    }
    renameSync(temp, file);
  }
  fsyncDirectory(dir);
  return true;
}

/**
 * The value of a file this function wrote: one line, ended by its newline. Without it the file was cut short
 * (by a crash, before this function flushed what it wrote) and is refused: a value read from it would not be
 * the one that sealed anything.
 */
function readWhole(file: string, settingName: string): string {
  const text = readFileSync(file, 'utf8');
  const value = text.trim();
  const problem =
    value === '' ? 'is empty' : !text.endsWith('\n') ? 'is cut short (no final newline)' : undefined;
  if (!problem) return value;
  throw new DevSecretError(
    `${file} ${problem}: it should hold the generated development ${settingName}. Restore it from a copy, or ` +
      `set ${settingName} yourself; deleting the file makes a new one, and what the old value sealed can no ` +
      'longer be opened.',
  );
}

export function loadOrCreateDevSecret(
  file: string,
  generate: () => string = () => randomBytes(32).toString('base64url'),
  logger?: Logger,
  settingName = 'secret',
): string {
  if (existsSync(file)) return readWhole(file, settingName);
  const dir = resolve(dirname(file));
  // The directories made here are flushed into their parents too, or the file's entry could vanish with them.
  const created = mkdirSync(dir, { recursive: true });
  if (created) {
    for (let d = dir; d !== dirname(d); d = dirname(d)) {
      fsyncDirectory(dirname(d));
      if (d === resolve(created)) break;
    }
  }
  const value = generate();
  if (!createDurably(file, `${value}\n`)) return readWhole(file, settingName);
  logger?.warn(
    `DEVELOPMENT ONLY: ${settingName} was not set; generated one in ${file}. Set it in production.`,
  );
  return value;
}
