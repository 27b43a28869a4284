// Validates a request body against a contract schema and turns failures into one 400 naming the fields (at
// most MAX_LISTED_ISSUES of them, with a count of the rest, so a body of many bad items stays a small answer).
import { NoFieldsRequest, describeIssues, validate } from '@cr/contracts';
import type { Static, TSchema } from '@sinclair/typebox';
import { AppError } from './errors';

export function parseBody<S extends TSchema>(schema: S, body: unknown): Static<S> {
  const result = validate(schema, body === undefined ? null : body);
  if (!result.ok && body === undefined) {
    // No JSON parser read a body: none was sent, or it came as text/plain, a form or without a Content-Type.
    const reason = 'must be a JSON object, sent with Content-Type: application/json';
    throw new AppError('bad_request', `(body): ${reason}`, { details: [{ path: '(body)', reason }] });
  }
  if (!result.ok) {
    throw new AppError('bad_request', describeIssues(result.issues, result.more), { details: result.issues });
  }
  return result.value;
}

/** The body of a route that takes no fields: none sent, or `{}`; a field or another JSON value is a 400. */
export function parseNoFields(body: unknown): void {
  if (body !== undefined) parseBody(NoFieldsRequest, body);
}
