-- An IdP session ends when its last tokens lapse, as a Keycloak session ends after its idle timeout: each
-- grant moves `expires_at` to when the tokens it issued expire, and a logout to the moment of the logout.
-- A session past it can no longer be used by anyone (every token it issued has expired), so the next
-- password grant deletes a batch of them: the table holds the sessions in use, not one row per login ever
-- made. A session live before this migration is given a day, longer than any token the sandbox issues with
-- its defaults; a client holding one past that is refused a refresh and logs in again, as it is after any
-- Keycloak session's end.
ALTER TABLE idp_sessions ADD COLUMN expires_at timestamptz;
UPDATE idp_sessions SET expires_at = coalesce(ended_at, now() + interval '1 day');
ALTER TABLE idp_sessions ALTER COLUMN expires_at SET NOT NULL;
CREATE INDEX idp_sessions_expiry ON idp_sessions (expires_at);
