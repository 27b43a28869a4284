-- The hourly housekeeping run deletes the keys whose 24 h have passed (ADR 0050): they were never deleted,
-- and the SDK sends a new key with every POST, so the table kept one row per request for good. The index
-- lets each run find the lapsed keys without reading the whole table.
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
