-- Clients that may log in, the signing keys (private halves sealed by the secret box), revoked token ids
-- and the brute-force counters. Times are Unix milliseconds (bigint) so the service's injected clock is the
-- only clock: rotation and throttling behave the same under a frozen clock in tests.

CREATE TABLE clients (
  base          text PRIMARY KEY,
  password_hash text NOT NULL,
  disabled      boolean NOT NULL DEFAULT false,
  created_at    bigint NOT NULL,
  updated_at    bigint NOT NULL
);

CREATE TABLE signing_keys (
  kid             text PRIMARY KEY,
  n               text NOT NULL,
  e               text NOT NULL,
  private_sealed  text NOT NULL,
  created_at      bigint NOT NULL,
  -- NULL while the key is the published "next" key that does not sign yet.
  activates_at    bigint
);
CREATE INDEX signing_keys_activates_at ON signing_keys (activates_at);

CREATE TABLE revoked_tokens (
  jti         text PRIMARY KEY,
  exp         bigint NOT NULL,
  revoked_at  bigint NOT NULL
);
CREATE INDEX revoked_tokens_revoked_at ON revoked_tokens (revoked_at);
CREATE INDEX revoked_tokens_exp ON revoked_tokens (exp);

CREATE TABLE login_failures (
  scope            text NOT NULL,
  key              text NOT NULL,
  failures         integer NOT NULL,
  last_failure_at  bigint NOT NULL,
  blocked_until    bigint NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX login_failures_last_failure_at ON login_failures (last_failure_at);
