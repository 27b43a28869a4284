// A span per database statement, child of whatever is active (the request, the job): the trace shows
// which statements a request waited on. The statement text is parameterised SQL (no values), cut short.
import { SpanKind, withSpan } from '../telemetry/tracing';

export function traced<T>(system: 'postgresql' | 'pglite', sql: string, run: () => Promise<T>): Promise<T> {
  const text = sql.trim();
  const operation = /^[A-Za-z]+/.exec(text)?.[0]?.toUpperCase() ?? 'SQL';
  return withSpan(
    `db ${operation}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system': system,
        'db.operation.name': operation,
        'db.query.text': text.slice(0, 300),
      },
    },
    () => run(),
  );
}
