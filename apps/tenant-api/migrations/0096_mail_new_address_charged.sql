-- Whether an e-mail took a slot of its tenant's MAIL_RESEND_NEW_ADDRESS_LIMIT (a resend through the platform's
-- SMTP server naming an address its document does not). A resend asked for while the tenant had a server of
-- its own took none; if the tenant returns to the platform's before it is sent, the platform would send it
-- uncounted: the job now charges it when it sends it, once (docs/security.md, "The platform's SMTP server as
-- a relay"). Rows stored before say false: an e-mail still pending that was charged when asked is charged
-- again if it goes through the platform, the safe side of not knowing.
ALTER TABLE mail_messages ADD COLUMN new_address_charged boolean NOT NULL DEFAULT false;
