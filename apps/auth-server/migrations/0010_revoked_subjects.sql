-- "Every token of this subject issued before not_before is revoked": written when a client is disabled,
-- deleted or its password changes, published in /revocations and checked by the tenant-api against iat.
-- not_before is Unix seconds (tokens carry iat in seconds); revoked_at is Unix milliseconds (the cursor of
-- the /revocations poll, like revoked_tokens.revoked_at).
CREATE TABLE revoked_subjects (
  subject     text PRIMARY KEY,
  not_before  bigint NOT NULL,
  revoked_at  bigint NOT NULL
);
CREATE INDEX revoked_subjects_revoked_at ON revoked_subjects (revoked_at);
CREATE INDEX revoked_subjects_not_before ON revoked_subjects (not_before);
