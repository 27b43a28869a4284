-- A webhook event's body is mostly base64 (the accepted document's PDF, Hacienda's answer): it does not
-- compress, but PostgreSQL tries pglz on every value over 2 KB before storing it out of line anyway. Measured
-- on PGlite with a 42 KB body (5-line invoice): 5.5–6.2 → 2.5–3.4 ms per insert, the same bytes stored
-- (docs/performance.md, "PGlite maintenance and the webhook body"). Rows written before keep their storage.
ALTER TABLE webhook_events ALTER COLUMN body SET STORAGE EXTERNAL;
