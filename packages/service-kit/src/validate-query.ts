// Validates a query string against a contract schema, as parseBody does a body. A query's values are text and
// the contracts' ajv never coerces, so a parameter the schema types as an integer is read from its decimal
// digits first; any other text (`1e2`, `ten`, and a repeated parameter, which arrives as a list) is left for
// the schema to refuse. Parameters the schema does not name are ignored, as the hand-written checks did.
import { type ValidationIssue, describeIssues, validate } from '@cr/contracts';
import type { Static, TObject } from '@sinclair/typebox';
import { AppError } from './errors';

const DECIMAL_INTEGER = /^-?\d+$/;

/** A refused parameter's reason in the 400, said by the route in place of the schema's (`must be >= 1`). */
export type QueryReasons<S extends TObject> = Partial<Record<keyof Static<S> & string, string>>;

export function parseQuery<S extends TObject>(
  schema: S,
  query: Record<string, unknown>,
  reasons: QueryReasons<S> = {},
): Static<S> {
  const params: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = query[name];
    if (value === undefined) continue;
    const integer = property.type === 'integer' && typeof value === 'string' && DECIMAL_INTEGER.test(value);
    params[name] = integer ? Number(value) : value;
  }
  const result = validate(schema, params);
  if (result.ok) return result.value;
  const issues: ValidationIssue[] = [];
  for (const issue of result.issues) {
    const reason = (reasons as Record<string, string | undefined>)[issue.path] ?? issue.reason;
    if (!issues.some((i) => i.path === issue.path && i.reason === reason)) issues.push({ ...issue, reason });
  }
  throw new AppError('bad_request', describeIssues(issues, result.more), { details: issues });
}
