-- Webhooks of a tenant: its endpoint (URL and sealed signing secrets, the previous one kept for the 24-hour
-- rotation overlap), the events (one per final state or replay; the body is frozen at the first attempt so
-- every retry sends identical bytes under the same webhook-id) and every delivery attempt.
-- Tenant tables: tenant_id, RLS and grants as 0001 (docs/decisions/0003-tenancy-and-rls.md).

CREATE TABLE webhook_endpoints (
  tenant_id text PRIMARY KEY,
  url text NOT NULL,
  -- whsec_ secrets sealed by the secret box, bound to the tenant and the column; never stored in clear.
  secret_sealed text NOT NULL,
  previous_secret_sealed text NULL,
  secrets_key_id text NOT NULL,
  rotated_at timestamptz NULL,
  active boolean NOT NULL DEFAULT true,
  disabled_at timestamptz NULL,
  disabled_reason text NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_events (
  id text PRIMARY KEY, -- the webhook-id (msg_…)
  tenant_id text NOT NULL,
  document_id uuid NOT NULL,
  clave text NOT NULL,
  estado text NOT NULL,
  -- The job that delivers it (one event per job), so a retried or re-claimed job finds its event again.
  job_id bigint NOT NULL UNIQUE,
  body text NOT NULL,
  -- pending | delivered | failed (gave up) | gone (410) | no_endpoint | disabled
  state text NOT NULL DEFAULT 'pending',
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz NULL
);
CREATE INDEX webhook_events_document ON webhook_events (tenant_id, document_id, created_at);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  tenant_id text NOT NULL,
  document_id uuid NOT NULL,
  event_id text NOT NULL REFERENCES webhook_events (id),
  attempt int NOT NULL,
  url text NOT NULL,
  status int NULL,
  latency_ms int NULL,
  error text NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, attempt)
);
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (tenant_id, created_at DESC);
CREATE INDEX webhook_deliveries_document ON webhook_deliveries (tenant_id, document_id, created_at);

ALTER TABLE webhook_endpoints ENABLE ROW LEVEL SECURITY;
CREATE POLICY webhook_endpoints_tenant_isolation ON webhook_endpoints
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_endpoints TO tenant_api_tenant;

ALTER TABLE webhook_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY webhook_events_tenant_isolation ON webhook_events
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_events TO tenant_api_tenant;

ALTER TABLE webhook_deliveries ENABLE ROW LEVEL SECURITY;
CREATE POLICY webhook_deliveries_tenant_isolation ON webhook_deliveries
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_deliveries TO tenant_api_tenant;
