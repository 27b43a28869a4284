-- A finished webhook event's frozen body (an accepted document's PDF and Hacienda's answer in base64, ~46 KB)
-- is cleared by the hourly housekeeping run JOBS_RETENTION_DAYS after the event finished (ADR 0051): only a
-- pending event's retries read it, and a replay is a new event built from the document. The row, its state
-- and its deliveries stay. The partial index holds only the finished events that still carry a body.
ALTER TABLE webhook_events ALTER COLUMN body DROP NOT NULL;
CREATE INDEX webhook_events_finished_body ON webhook_events (finished_at)
  WHERE body IS NOT NULL AND finished_at IS NOT NULL;
