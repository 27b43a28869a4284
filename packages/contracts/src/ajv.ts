// Two ajv instances over the same schemas, each compiling a schema once (cached by `$id`): a fail-fast one
// (`allErrors: false`) decides every validation, so a valid body costs one pass and an invalid one stops at
// its first problem; the one that collects every problem runs only on a small body that already failed.
// With `allErrors` on any body, 80,000 `{}` array items (240 KB) made 640,000 issues, a 75 MB message and
// seconds of blocked event loop: ajv checks every item even past `maxItems`. Every failure is reported as at
// most MAX_LISTED_ISSUES {path, reason} that name the fields the client got wrong. Strings (and keys)
// holding U+0000 are refused here too: PostgreSQL `text`/`jsonb` cannot store them, so they would otherwise
// end as a 500 deep in a use case. So are the other characters XML 1.0 cannot carry (C0 controls but tab,
// LF and CR; lone surrogates; U+FFFE, U+FFFF): the XML writer drops them, so "\u0001\u0001\u0001" passed
// minLength 3 here and became an empty Nombre that the XSD refuses after the document was numbered.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';

const OPTIONS = { strict: true, coerceTypes: false, useDefaults: false } as const;

/**
 * `format: 'single-line'`, for a name shown in lists, documents and logs (an issuer's, an API key's): no line
 * break (CR, LF, NEL, U+2028, U+2029) and no bidirectional embedding, override or isolate control
 * (U+202A-U+202E, U+2066-U+2069), which would let a name break a line of a log, a table or a PDF, or show
 * its text reversed ("Acme\u202Egnp.exe" reads "Acmeexe.png").
 */
export const SINGLE_LINE = 'single-line';
export const SINGLE_LINE_REASON =
  'must be one line of text: no line breaks and no bidirectional control characters (U+202A-U+202E, U+2066-U+2069)';
const BREAKS_A_LINE = /[\r\n\u0085\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

function withFormats(instance: Ajv): Ajv {
  addFormats(instance);
  instance.addFormat(SINGLE_LINE, { type: 'string', validate: (text: string) => !BREAKS_A_LINE.test(text) });
  return instance;
}

export const ajv = withFormats(new Ajv({ ...OPTIONS, allErrors: true }));
const failFastAjv = withFormats(new Ajv({ ...OPTIONS, allErrors: false }));

/** At most this many issues are listed in a failure (the rest are counted in `more`). */
export const MAX_LISTED_ISSUES = 50;
// A failed body is searched for every problem only when this small: beyond it (an invoice of about 150
// lines) only the fail-fast problem is reported. With allErrors an item can cost ~8 errors, so 5,000 values
// bound that pass to ~40,000 errors (ajv: ~30 ms), of which only the listed are described; the text bound
// keeps `pattern` off megabytes of strings.
const MAX_VALUES_FOR_ALL_ISSUES = 5_000;
const MAX_TEXT_FOR_ALL_ISSUES = 128 * 1024;

export const NUL_REASON = 'must not contain the NUL character (U+0000)';
export const XML_CHAR_REASON =
  'must not contain control characters (other than tab, LF and CR), unpaired surrogates, U+FFFE or U+FFFF: XML cannot carry them';

// With the `u` flag a well-formed surrogate pair is one code point, so the surrogate range matches only a
// lone one. Every string is tested once on the valid path (one regex test, as cheap as `includes`). Built
// from its source text so that this file holds no control character (the same set as xml-text's).
const NOT_XML_CHARACTERS = '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uD800-\\uDFFF\\uFFFE\\uFFFF]';
const NOT_XML_CHARACTER = new RegExp(NOT_XML_CHARACTERS, 'u');
const NOT_XML_CHARACTER_ALL = new RegExp(NOT_XML_CHARACTERS, 'gu');
const escapeCharacter = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Why `text` cannot be accepted, or undefined when every character is storable and XML-safe. Also for text
 * that arrives otherwise than as a JSON string (a Base64 XML document): PostgreSQL cannot store U+0000.
 */
export function xmlCharacterProblem(text: string): string | undefined {
  if (!NOT_XML_CHARACTER.test(text)) return undefined;
  return text.includes('\u0000') ? NUL_REASON : XML_CHAR_REASON;
}

const compiled = new Map<string, ValidateFunction>();
const compiledFailFast = new Map<string, ValidateFunction>();

export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `detalleServicio[0].impuesto[0].tarifa`; `(body)` for the root. */
  path: string;
  reason: string;
}

/**
 * `issues` lists at most MAX_LISTED_ISSUES problems; `more` counts those left out, or is `'unsearched'` when
 * the body was too large to search past its first problem.
 */
export type ValidationFailure = { ok: false; issues: ValidationIssue[]; more: number | 'unsearched' };

export type ValidationResult<T> = { ok: true; value: T } | ValidationFailure;

function schemaKey(schema: TSchema): string {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('contracts: only schemas with an $id are compiled');
  return id;
}

function compileOnce(instance: Ajv, cache: Map<string, ValidateFunction>, schema: TSchema): ValidateFunction {
  const key = schemaKey(schema);
  let fn = cache.get(key);
  if (!fn) {
    fn = instance.getSchema(key) ?? instance.compile(schema);
    cache.set(key, fn);
  }
  return fn;
}

/** Compiled validator (collecting every error) for a schema with an `$id`; compiled on first use, then reused. */
export function validatorFor(schema: TSchema): ValidateFunction {
  return compileOnce(ajv, compiled, schema);
}

/** Validates `data` against `schema`; never throws for bad data. */
export function validate<S extends TSchema>(schema: S, data: unknown): ValidationResult<Static<S>> {
  const failFast = compileOnce(failFastAjv, compiledFailFast, schema);
  if (failFast(data)) {
    if (!holdsForbiddenCharacter(data)) return { ok: true, value: data as Static<S> };
    return capped(findForbiddenCharacters(data));
  }
  if (!isSmall(data)) return { ok: false, issues: toIssues(failFast.errors ?? []), more: 'unsearched' };
  const all = validatorFor(schema);
  all(data);
  // ajv's errors are cheap; describing each is not (40,000 took ~0.3 s): only the listed ones are described.
  const listed = firstIssues(all.errors ?? [], MAX_LISTED_ISSUES);
  const found = capped([...listed.issues, ...findForbiddenCharacters(data)]);
  return { ...found, more: (found.more as number) + listed.unlisted };
}

function capped(issues: ValidationIssue[]): ValidationFailure {
  return {
    ok: false,
    issues: issues.slice(0, MAX_LISTED_ISSUES),
    more: Math.max(0, issues.length - MAX_LISTED_ISSUES),
  };
}

/** Whether `data` has at most MAX_VALUES_FOR_ALL_ISSUES values and MAX_TEXT_FOR_ALL_ISSUES characters; stops counting past them. */
function isSmall(data: unknown): boolean {
  let values = 0;
  let text = 0;
  const pending: unknown[] = [data];
  while (pending.length > 0) {
    const value = pending.pop();
    values += 1;
    if (values > MAX_VALUES_FOR_ALL_ISSUES) return false;
    if (typeof value === 'string') text += value.length;
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        text += key.length;
        pending.push(child);
      }
    }
    if (text > MAX_TEXT_FOR_ALL_ISSUES) return false;
  }
  return true;
}

/** Whether any string or key of `data` holds U+0000 or another non-XML character: the valid body's pass, without building paths. */
function holdsForbiddenCharacter(data: unknown): boolean {
  // Iterative: a body's depth is the client's choice.
  const pending: unknown[] = [data];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (NOT_XML_CHARACTER.test(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      // Keys, not entries: this pass runs on every valid body, and an entry is an array allocated per field.
      const object = value as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        if (NOT_XML_CHARACTER.test(key)) return true;
        pending.push(object[key]);
      }
    }
  }
  return false;
}

interface Step {
  parent: Step | undefined;
  segment: string | number;
}

function pathOf(step: Step | undefined): string {
  const segments: (string | number)[] = [];
  for (let s = step; s; s = s.parent) segments.unshift(s.segment);
  const path = segments.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg),
    '',
  );
  return path || '(body)';
}

/**
 * Every string and key holding U+0000 or another non-XML character, by path (in a key each such character is
 * shown escaped, e.g. the text `\u0000`).
 */
function findForbiddenCharacters(data: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const pending: { value: unknown; at: Step | undefined }[] = [{ value: data, at: undefined }];
  while (pending.length > 0) {
    const { value, at } = pending.pop() as { value: unknown; at: Step | undefined };
    if (typeof value === 'string') {
      const problem = xmlCharacterProblem(value);
      if (problem) issues.push({ path: pathOf(at), reason: problem });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        pending.push({ value: value[i], at: { parent: at, segment: i } });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        const problem = xmlCharacterProblem(key);
        if (problem) {
          const shown = key.replace(NOT_XML_CHARACTER_ALL, escapeCharacter);
          issues.push({ path: pathOf({ parent: at, segment: shown }), reason: problem });
        } else pending.push({ value: child, at: { parent: at, segment: key } });
      }
    }
  }
  return issues;
}

/** `/detalleServicio/0/codigo` → `detalleServicio[0].codigo`. */
export function pointerToPath(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function joinPath(base: string, child: string): string {
  return base ? `${base}.${child}` : child;
}

function describeAllowed(values: unknown[]): string {
  const shown = values.slice(0, 12).map((v) => JSON.stringify(v));
  return `must be one of ${shown.join(', ')}${values.length > shown.length ? `, … (${values.length} codes)` : ''}`;
}

export function toIssues(errors: ErrorObject[]): ValidationIssue[] {
  return firstIssues(errors, Number.POSITIVE_INFINITY).issues;
}

/**
 * The first `limit` distinct issues of `errors`, and how many errors were left undescribed after them (an
 * upper bound on the issues they hold: duplicates among them are not looked for).
 */
function firstIssues(all: ErrorObject[], limit: number): { issues: ValidationIssue[]; unlisted: number } {
  const errors = pruneAnyOf(all);
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (let at = 0; at < errors.length; at++) {
    const err = errors[at] as ErrorObject;
    if (issues.length >= limit) {
      const unlisted = errors.slice(at).filter((e) => e.keyword !== 'if').length;
      return { issues, unlisted };
    }
    // An if/then/else failure repeats, without a field, what the branch's own errors already say.
    if (err.keyword === 'if') continue;
    const base = pointerToPath(err.instancePath);
    let path = base;
    let reason: string;
    switch (err.keyword) {
      case 'required':
        path = joinPath(base, String((err.params as { missingProperty: string }).missingProperty));
        reason = 'is required';
        break;
      case 'additionalProperties':
        path = joinPath(base, String((err.params as { additionalProperty: string }).additionalProperty));
        reason = 'is not an allowed field';
        break;
      case 'type':
        reason = `must be of type ${(err.params as { type: string }).type}`;
        break;
      case 'enum':
        reason = describeAllowed((err.params as { allowedValues: unknown[] }).allowedValues ?? []);
        break;
      case 'const':
        reason = `must be ${JSON.stringify((err.params as { allowedValue: unknown }).allowedValue)}`;
        break;
      case 'format':
        reason =
          (err.params as { format?: string }).format === SINGLE_LINE
            ? SINGLE_LINE_REASON
            : (err.message ?? 'is invalid');
        break;
      case 'pattern':
        // The pattern itself: ajv hands the schema's description only with `verbose`, which is not set.
        reason = `must match pattern ${(err.params as { pattern: string }).pattern}`;
        break;
      default:
        reason = err.message ?? 'is invalid';
    }
    const key = `${path || '(body)'}|${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: path || '(body)', reason });
  }
  return { issues, unlisted: 0 };
}

/**
 * An `anyOf` failure (receptor: "" or an object; a means of payment: a code or an integer; one reference or a
 * list) comes with every branch's errors, then "must match a schema in anyOf": a receptor without nombre read
 * `receptor: must be of type string; receptor: must be ""; receptor.nombre: is required; receptor: must match a
 * schema in anyOf`. Only the branches whose type the value has are kept, so that reads `receptor.nombre: is
 * required`; a value of no branch's type is one `must be of type string or object`. ajv lists a branch's
 * errors just before the anyOf's own, under its schema path.
 */
function pruneAnyOf(errors: ErrorObject[]): ErrorObject[] {
  if (!errors.some((e) => e.keyword === 'anyOf')) return errors;
  const dropped = new Set<number>();
  const added = new Map<number, ErrorObject>();
  for (let at = 0; at < errors.length; at++) {
    const anyOf = errors[at] as ErrorObject;
    if (anyOf.keyword !== 'anyOf' || dropped.has(at)) continue;
    const prefix = `${anyOf.schemaPath}/`;
    const branches = new Map<string, number[]>();
    for (let i = at - 1; i >= 0; i--) {
      const e = errors[i] as ErrorObject;
      if (!e.schemaPath.startsWith(prefix) || !e.instancePath.startsWith(anyOf.instancePath)) break;
      const branch = e.schemaPath.slice(prefix.length).split('/')[0] as string;
      branches.set(branch, [...(branches.get(branch) ?? []), i]);
    }
    if (branches.size === 0) continue;
    const wrongType = (e: ErrorObject) => e.keyword === 'type' && e.instancePath === anyOf.instancePath;
    const fitting = [...branches.values()].filter(
      (idx) => !idx.some((i) => wrongType(errors[i] as ErrorObject)),
    );
    dropped.add(at);
    if (fitting.length > 0) {
      for (const idx of branches.values()) if (!fitting.includes(idx)) for (const i of idx) dropped.add(i);
      continue;
    }
    const types = new Set<string>();
    for (const branch of [...branches.keys()].sort((x, y) => Number(x) - Number(y))) {
      for (const i of branches.get(branch) ?? []) {
        const e = errors[i] as ErrorObject;
        if (wrongType(e)) types.add(String((e.params as { type: string }).type));
        dropped.add(i);
      }
    }
    added.set(at, { ...anyOf, keyword: 'type', params: { type: [...types].join(' or ') } });
  }
  const out: ErrorObject[] = [];
  for (let at = 0; at < errors.length; at++) {
    const replacement = added.get(at);
    if (replacement) out.push(replacement);
    else if (!dropped.has(at)) out.push(errors[at] as ErrorObject);
  }
  return out;
}

/** One line naming every listed failing field, and how many more there are, for the `message` of a 400. */
export function describeIssues(issues: ValidationIssue[], more: number | 'unsearched' = 0): string {
  const listed = issues.map((i) => `${i.path}: ${i.reason}`).join('; ');
  if (more === 'unsearched') return `${listed}; … (only the first problem is listed for a body this large)`;
  return more > 0 ? `${listed}; … and ${more.toLocaleString('en-US')} more` : listed;
}
