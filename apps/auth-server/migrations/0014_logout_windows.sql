-- Logouts per client (base) and minute: each one adds a revocation every tenant-api replica holds until the
-- token would have expired, so a client's logouts are bounded (LOGOUTS_PER_MINUTE, logout-limit.ts).
-- window_start: Unix milliseconds of the minute's start.
CREATE TABLE logout_windows (
  base text NOT NULL,
  window_start bigint NOT NULL,
  logouts integer NOT NULL,
  PRIMARY KEY (base, window_start)
);
