-- The recipients an SMTP server already took for an e-mail while it refused others (a greylisted or unknown
-- receptor beside an accepted copia). The e-mail stays pendiente and the next attempt goes to the others only:
-- recorded as sent, the tenant would have been told the receptor had it; retried to everyone, the copias would
-- get it again on every attempt.
ALTER TABLE mail_messages ADD COLUMN delivered_to jsonb NOT NULL DEFAULT '[]'::jsonb;
