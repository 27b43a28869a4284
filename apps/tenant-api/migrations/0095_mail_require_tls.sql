-- A tenant's SMTP server without `secure` (TLS from the first byte) got STARTTLS only when it offered it: an
-- attacker on the path who strips STARTTLS from the EHLO reply read the tenant's SMTP password (AUTH in
-- clear) and its e-mails (the invoices, with the receptor's personal data). Now STARTTLS is required unless
-- the tenant says its server has no TLS (`requiereTls: false`, never with a password; docs/delivery.md).
ALTER TABLE tenant_mail_settings ADD COLUMN require_tls boolean NOT NULL DEFAULT true;

-- Rows stored before: one with a password requires TLS (its credentials must never travel in clear; a server
-- that does not offer STARTTLS now gets failed attempts, recorded, instead of the password). One without
-- keeps today's behaviour, so its mail does not suddenly stop; with `secure` it is TLS anyway, shown as such.
UPDATE tenant_mail_settings SET require_tls = (password_sealed IS NOT NULL OR secure);
