-- API keys (issue 11, item 3): a client's machine credentials, exchanged at POST /login for a token with the
-- key's scopes. Only a SHA-256 digest of the key's secret is stored (the secret is 256 random bits, so a
-- slow hash adds nothing but a way to make /login expensive); the key itself is shown once, at creation.
-- Revoked keys stay listed (revoked_at) so an audit can still name them. Times are Unix milliseconds.
CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  base          text NOT NULL REFERENCES clients (base) ON DELETE CASCADE,
  name          text NOT NULL,
  scopes        text NOT NULL,
  secret_sha256 text NOT NULL,
  created_at    bigint NOT NULL,
  revoked_at    bigint,
  last_used_at  bigint
);
CREATE INDEX api_keys_base ON api_keys (base, created_at);
