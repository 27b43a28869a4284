// Finished webhook events give up their frozen body after the retention (ADR 0051). The body is what every
// attempt of a pending event sends, byte for byte; once the event is delivered, failed, gone or had nowhere
// to go, nothing reads it again (a replay is a new event, built from the document), yet it holds an accepted
// document's PDF and Hacienda's answer in base64, some 42–46 KB a document. Kept for the retention, it still
// shows support exactly what was sent; the row, its state and its deliveries stay for good.
import type { Queryable } from '@cr/service-kit';

/**
 * unsafe: crosses tenants on purpose (the service's hourly housekeeping, as the owning role): clears the
 * body of up to `limit` events that finished before `before`, the oldest first; returns how many. A pending
 * event (still being retried) never loses its body: only a row with a finished_at qualifies.
 */
export async function unsafeClearFinishedEventBodies(
  db: Queryable,
  before: Date,
  limit: number,
): Promise<number> {
  const r = await db.query(
    `UPDATE webhook_events e SET body = NULL
     FROM (SELECT id FROM webhook_events
           WHERE body IS NOT NULL AND finished_at IS NOT NULL AND finished_at < $1
           ORDER BY finished_at LIMIT $2) done
     WHERE e.id = done.id AND e.body IS NOT NULL`,
    [before, limit],
  );
  return r.rowCount;
}
