// Secrets never reach the logs: values under secret-looking keys are replaced, and bearer tokens, JWTs,
// PEM blocks and long base64 blobs are masked wherever they appear inside strings.
import { types } from 'node:util';

const SECRET_KEY =
  /pass(word)?|pwd|secret|token|authorization|cookie|^pin$|pincertificado|clavehacienda|certificado|p12|pkcs|private|api[-_]?key|credential|refresh/i;

// A path segment that is a random token: 40 or more base64url characters, not all digits (a clave is 50
// digits and stays readable; a UUID is 36). Hacienda's callback URL carries the document's only key this way
// (`/hacienda/callback/<43 characters>`), and request paths reach access logs and trace spans.
const TOKEN_SEGMENT = /\/(?=[A-Za-z0-9_-]*[A-Za-z_-])[A-Za-z0-9_-]{40,}(?=[/?#]|$)/g;

// Every pattern below runs in time linear in the string: log lines carry text from requests and documents
// (a supplier's XML can put 2 MB in one value), and the formats run before the level filter. A pattern that
// may restart inside a run it already scanned (`eyJeyJeyJ…` for a JWT, `a.a.a.…` for a URL scheme) is anchored
// to the start of its run by a lookbehind; PEM blocks are cut by indexOf (maskPemBlocks), not a lazy match.
const PATTERNS: Array<[RegExp, string]> = [
  [TOKEN_SEGMENT, '/[REDACTED]'],
  [/Bearer\s+[A-Za-z0-9\-._~+/]+=*/gi, 'Bearer [REDACTED]'],
  [/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, '[REDACTED_JWT]'],
  [/(authorization["']?\s*[:=]\s*["']?Basic\s+)[A-Za-z0-9+/]+=*/gi, '$1[REDACTED]'],
  // A key written in JSON text ("password":"x") or a form (client_secret=x) as well as key: value.
  [
    /(?<![A-Za-z0-9])(password|passwd|pwd|pin|secret|token|clave_?hacienda|api[_-]?key)(["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"'}]+)/gi,
    '$1$2[REDACTED]',
  ],
  // Our API keys (crk_<id>_<secret>) and credentials in a URL (smtp://user:password@host).
  [/\bcrk_[A-Za-z0-9_-]+/g, 'crk_[REDACTED]'],
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, '$1[REDACTED]@'],
  [/whsec_[A-Za-z0-9+/=]+/g, 'whsec_[REDACTED]'],
  [/[A-Za-z0-9+/]{200,}={0,2}/g, '[REDACTED_BLOB]'],
];

export const REDACTED = '[REDACTED]';

const PEM_BEGIN = /-----BEGIN [A-Z ]{1,40}-----/g;
const PEM_END = /-----END [A-Z ]{1,40}-----/g;

/**
 * `-----BEGIN …-----` up to the next `-----END …-----` becomes [REDACTED_PEM]; a block without its end (a
 * message cut short) is masked to the end of the string rather than left half readable.
 */
function maskPemBlocks(value: string): string {
  if (!value.includes('-----BEGIN ')) return value;
  let out = '';
  let from = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(value); begin; begin = PEM_BEGIN.exec(value)) {
    PEM_END.lastIndex = begin.index + begin[0].length;
    const end = PEM_END.exec(value);
    out += `${value.slice(from, begin.index)}[REDACTED_PEM]`;
    if (!end) return out;
    from = end.index + end[0].length;
    PEM_BEGIN.lastIndex = from;
  }
  return out + value.slice(from);
}

export function redactString(value: string): string {
  let out = maskPemBlocks(value);
  for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement);
  return out;
}

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** Deep copy with secrets masked; safe on cycles and on class instances like Error. */
export function redact(value: unknown, seen = new WeakSet<object>(), depth = 0): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[DEPTH]';
  if (seen.has(value)) return '[CIRCULAR]';
  seen.add(value);
  if (Buffer.isBuffer(value)) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redact(v, seen, depth + 1));
  const out: Record<string, unknown> = {};
  // isNativeError also knows an error made in another realm (Node's fetch inside a jest sandbox).
  if (value instanceof Error || types.isNativeError(value)) {
    out.name = value.name;
    out.message = redactString(value.message);
    if (value.stack) out.stack = redactString(value.stack);
    // Not enumerable, so not copied below: the refused connection behind an "upstream did not answer".
    if (value.cause !== undefined) out.cause = redact(value.cause, seen, depth + 1);
  }
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretKey(k) ? REDACTED : redact(v, seen, depth + 1);
  }
  return out;
}
