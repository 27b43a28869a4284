// The dashboard's session cookie and its CSRF value (docs/decisions/0021). The token lives only in an
// httpOnly, Secure, SameSite=Strict `__Host-` cookie, so page scripts never read it. Its CSRF value is the
// SHA-256 of the token: the page learns it from GET /app/session (same origin only) and echoes it in
// X-CSRF-Token; another site can make the browser send the cookie (SameSite aside) but cannot know the value.
import { createHash, timingSafeEqual } from 'node:crypto';
import { SESSION_COOKIE } from '@cr/contracts';
import type { Request } from 'express';

const TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

/** The session token from the Cookie header, when one that looks like a JWT is there. */
export function readSessionToken(req: Request): string | undefined {
  const header = req.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return TOKEN.test(value) ? value : undefined;
  }
  return undefined;
}

export function csrfOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** Whether `header` is the CSRF value of `token`, compared in constant time. */
export function csrfMatches(header: string | undefined, token: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(csrfOf(token));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const FLAGS = 'Path=/; HttpOnly; Secure; SameSite=Strict';

export function sessionCookie(token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; ${FLAGS}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; ${FLAGS}; Max-Age=0`;
}
