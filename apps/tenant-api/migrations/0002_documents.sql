-- Documents submitted through POST /api/enviar/items, their state-transition log and the Idempotency-Key
-- records. Same tenancy as 0001: tenant_id in every row, RLS policies on app.tenant_id, grants to the
-- tenant role (docs/decisions/0003, 0008).

CREATE TABLE documents (
  id uuid PRIMARY KEY,
  tenant_id text NOT NULL,
  clave text NOT NULL UNIQUE,
  -- The request's tipoDoc ('1' invoice, '3' credit note, '4' ticket).
  tipo_doc text NOT NULL,
  -- The issuer's identificacion.
  emisor text NOT NULL,
  -- The issuer's identification type ('01'..'04'), for POST /recepcion.
  emisor_tipo text NOT NULL,
  sucursal integer NOT NULL,
  terminal integer NOT NULL,
  numero_referencia bigint NOT NULL,
  consecutivo text NOT NULL,
  fecha_emision timestamptz NOT NULL,
  -- FechaEmision exactly as written in the XML (Costa Rica offset), the `fecha` of POST /recepcion.
  fecha_emision_text text NOT NULL,
  ambiente smallint NOT NULL,
  receptor_tipo text NULL,
  receptor_numero text NULL,
  estado text NOT NULL CHECK (estado IN ('pendiente', 'enviado', 'aceptado', 'rechazado', 'error')),
  -- SHA-256 of the canonical JSON of the request body: same number + same body is a repeat, else a conflict.
  request_hash text NOT NULL,
  xml text NOT NULL,
  totals jsonb NOT NULL,
  -- The per-document callback token: its SHA-256 finds the document, the sealed copy rebuilds the URL.
  callback_token_hash text NOT NULL UNIQUE,
  callback_token_sealed text NOT NULL,
  submit_attempts integer NOT NULL DEFAULT 0,
  status_checks integer NOT NULL DEFAULT 0,
  error_cause text NULL,
  respuesta_xml text NULL,
  mensaje smallint NULL,
  detalle jsonb NULL,
  -- Signature verification of the MensajeHacienda ({valid, findings}).
  respuesta_verificacion jsonb NULL,
  respuesta_totales jsonb NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- One document per number: the consecutivo's parts within the tenant's issuer.
  CONSTRAINT documents_number_unique UNIQUE (tenant_id, emisor, sucursal, terminal, tipo_doc, numero_referencia)
);

CREATE INDEX documents_tenant_created ON documents (tenant_id, created_at);

ALTER TABLE documents ENABLE ROW LEVEL SECURITY;
CREATE POLICY documents_tenant_isolation ON documents
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE ON documents TO tenant_api_tenant;

-- Every state a document enters, once: the unique pair makes a replayed transition a no-op.
CREATE TABLE document_events (
  id bigserial PRIMARY KEY,
  tenant_id text NOT NULL,
  document_id uuid NOT NULL REFERENCES documents (id),
  estado text NOT NULL,
  detalle text NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT document_events_once UNIQUE (document_id, estado)
);

ALTER TABLE document_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY document_events_tenant_isolation ON document_events
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT ON document_events TO tenant_api_tenant;
GRANT USAGE ON SEQUENCE document_events_id_seq TO tenant_api_tenant;

-- Idempotency-Key (IETF draft httpapi-idempotency-key-header): per tenant, kept 24 h.
CREATE TABLE idempotency_keys (
  tenant_id text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_flight', 'done')),
  response_status integer NULL,
  response_body jsonb NULL,
  locked_until timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, key)
);

ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY idempotency_keys_tenant_isolation ON idempotency_keys
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO tenant_api_tenant;
