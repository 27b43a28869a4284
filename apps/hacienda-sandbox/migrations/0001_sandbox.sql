CREATE TABLE idp_users (
  realm text NOT NULL,
  username text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, username)
);

CREATE TABLE idp_sessions (
  id text PRIMARY KEY,
  realm text NOT NULL,
  username text NOT NULL,
  client_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz
);

CREATE TABLE taxpayers (
  identificacion text PRIMARY KEY,
  data jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE exonerations (
  numero_documento text PRIMARY KEY,
  data jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE forced_verdicts (
  id bigserial PRIMARY KEY,
  verdict jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
  clave text PRIMARY KEY,
  fecha text NOT NULL,
  emisor_tipo text NOT NULL,
  emisor_numero text NOT NULL,
  receptor_tipo text,
  receptor_numero text,
  consecutivo_receptor text,
  callback_url text,
  username text NOT NULL,
  comprobante_xml text NOT NULL,
  estado text NOT NULL,
  forced jsonb,
  findings jsonb,
  respuesta_xml text,
  received_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  callback_attempts integer NOT NULL DEFAULT 0,
  callback_status text
);

CREATE INDEX documents_pending ON documents (estado) WHERE estado IN ('recibido', 'procesando');
