-- Logouts per client credential (its password, or one of its API keys) and minute: each one adds a revocation
-- every tenant-api replica holds until the token would have expired, so they are bounded (LOGOUTS_PER_MINUTE,
-- logout-limit.ts). credential: 'password' or the API key's id. window_start: Unix milliseconds of the minute.
CREATE TABLE logout_windows (
  base text NOT NULL,
  credential text NOT NULL,
  window_start bigint NOT NULL,
  logouts integer NOT NULL,
  PRIMARY KEY (base, credential, window_start)
);
