-- A key an admin retired at once (leaked): never signs, never published, never verifies again, and its
-- private half is overwritten with '' in the same transaction.
ALTER TABLE signing_keys ADD COLUMN retired_at bigint;
