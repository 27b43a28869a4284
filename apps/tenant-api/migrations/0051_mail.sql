-- E-mail to the receptor (docs/delivery.md, ADR 0018): the tenant's SMTP settings (the password sealed like
-- the issuer secrets), the recipients a submission named, each e-mail of a document (after acceptance, or a
-- resend) and every attempt to hand it to the SMTP server. Tenancy as 0001 (tenant_id, RLS, grants).

-- The request's copias (a JSON array of addresses); the receptor's own address is read from the signed XML.
ALTER TABLE documents ADD COLUMN correo_copias jsonb NULL;

CREATE TABLE tenant_mail_settings (
  tenant_id text PRIMARY KEY,
  host text NOT NULL,
  port integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
  secure boolean NOT NULL,
  username text NULL,
  -- Sealed by the secret box, bound to the tenant and the column; never stored or shown in clear.
  password_sealed text NULL,
  secrets_key_id text NULL,
  from_address text NOT NULL,
  from_name text NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE mail_messages (
  id text PRIMARY KEY, -- env_…
  tenant_id text NOT NULL,
  document_id uuid NOT NULL,
  -- aceptado (the one after acceptance) | reenvio
  reason text NOT NULL CHECK (reason IN ('aceptado', 'reenvio')),
  recipients jsonb NOT NULL,
  -- pendiente | enviado | fallido (gave up)
  state text NOT NULL DEFAULT 'pendiente' CHECK (state IN ('pendiente', 'enviado', 'fallido')),
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz NULL
);
CREATE INDEX mail_messages_document ON mail_messages (tenant_id, document_id, created_at);

CREATE TABLE mail_attempts (
  id uuid PRIMARY KEY,
  tenant_id text NOT NULL,
  message_id text NOT NULL REFERENCES mail_messages (id),
  attempt int NOT NULL,
  ok boolean NOT NULL,
  -- The SMTP reply code (250, 421, 550…); NULL when no server answered (refused, timeout).
  code int NULL,
  reply text NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (message_id, attempt)
);

ALTER TABLE tenant_mail_settings ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_mail_settings_tenant_isolation ON tenant_mail_settings
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_mail_settings TO tenant_api_tenant;

ALTER TABLE mail_messages ENABLE ROW LEVEL SECURITY;
CREATE POLICY mail_messages_tenant_isolation ON mail_messages
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON mail_messages TO tenant_api_tenant;

ALTER TABLE mail_attempts ENABLE ROW LEVEL SECURITY;
CREATE POLICY mail_attempts_tenant_isolation ON mail_attempts
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON mail_attempts TO tenant_api_tenant;
