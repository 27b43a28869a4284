-- The last successful login of a (base, IP) pair: such a pair is never held back by the per-base signal
-- (an attacker failing from elsewhere must not lock the real client out). Unix milliseconds.
ALTER TABLE login_failures ADD COLUMN last_success_at bigint;
