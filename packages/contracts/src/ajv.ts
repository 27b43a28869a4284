// One ajv instance for the whole process: every schema is compiled once (cached by `$id`) and every
// validation failure is reported as a list of {path, reason} that names the field the client got wrong.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';

export const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });
addFormats(ajv);

const compiled = new Map<string, ValidateFunction>();

export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `detalleServicio[0].impuesto[0].tarifa`; `(body)` for the root. */
  path: string;
  reason: string;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

function schemaKey(schema: TSchema): string {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('contracts: only schemas with an $id are compiled');
  return id;
}

/** Compiled validator for a schema with an `$id`; compiled on first use, then reused. */
export function validatorFor(schema: TSchema): ValidateFunction {
  const key = schemaKey(schema);
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.getSchema(key) ?? ajv.compile(schema);
    compiled.set(key, fn);
  }
  return fn;
}

/** Validates `data` against `schema`; never throws for bad data. */
export function validate<S extends TSchema>(schema: S, data: unknown): ValidationResult<Static<S>> {
  const fn = validatorFor(schema);
  if (fn(data)) return { ok: true, value: data as Static<S> };
  return { ok: false, issues: toIssues(fn.errors ?? []) };
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
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const err of errors) {
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
      case 'pattern':
        reason =
          err.parentSchema && typeof (err.parentSchema as { description?: unknown }).description === 'string'
            ? `must match the expected format (${(err.parentSchema as { description: string }).description})`
            : `must match pattern ${(err.params as { pattern: string }).pattern}`;
        break;
      default:
        reason = err.message ?? 'is invalid';
    }
    const key = `${path || '(body)'}|${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: path || '(body)', reason });
  }
  return issues;
}

/** One line naming every failing field, for the `message` of a 400. */
export function describeIssues(issues: ValidationIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.reason}`).join('; ');
}
