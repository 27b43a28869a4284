// The services' one JSON body parser. Bodies are read as sent: a compressed one (any Content-Encoding but
// identity) is refused before a byte is inflated. body-parser inflates by default and its limit counts the
// inflated bytes, so a few KB of gzip reached a whole limit, and a limit's worth of nested arrays holds the
// event loop every tenant shares: 11–35 ms for 256 KB, 330–550 ms for 4 MB (docs/security.md, found 2026-12-06).
// Sent uncompressed, such a body costs its sender the bytes it costs us.
import express, { type RequestHandler } from 'express';

export interface JsonBodyOptions {
  limit: string | number;
  /**
   * A route whose body is a few strings (an upload in Base64) caps the `{` and `[` bytes it may hold, counted
   * before the body is parsed: what JSON.parse costs is the values it makes, and a body of strings makes a
   * handful however large it is. `shape` says in the refusal what the route takes.
   */
  containers?: { max: number; shape: string };
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/** How many of `byte` the buffer holds, counting no further than `stopAfter`. */
function countUpTo(buf: Buffer, byte: number, stopAfter: number): number {
  let n = 0;
  // indexOf is a memchr: a Base64 megabyte without the byte is scanned in well under a millisecond.
  for (let at = buf.indexOf(byte); at !== -1 && n <= stopAfter; at = buf.indexOf(byte, at + 1)) n += 1;
  return n;
}

/** body-parser's `verify`: its error keeps the status and the type errors.ts maps to a 400. */
function refuseContainersOver(max: number, shape: string) {
  return (_req: unknown, _res: unknown, buf: Buffer): void => {
    const braces = countUpTo(buf, OPEN_BRACE, max);
    if (braces + countUpTo(buf, OPEN_BRACKET, max - braces) > max) {
      throw Object.assign(new Error(`request body holds more than ${max} '{' or '[': ${shape}`), {
        status: 400,
        type: 'entity.containers',
      });
    }
  };
}

export function jsonBody({ limit, containers }: JsonBodyOptions): RequestHandler {
  return express.json({
    limit,
    strict: true,
    inflate: false,
    ...(containers ? { verify: refuseContainersOver(containers.max, containers.shape) } : {}),
  });
}
