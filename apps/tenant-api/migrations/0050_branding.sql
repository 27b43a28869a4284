-- The tenant's branding of its PDFs (POST /api/configurar/marca): a logo (PNG or JPEG, at most 150 KB) and
-- a footer text. One row per tenant; tenancy as 0001 (tenant_id, RLS on app.tenant_id, grants to the role).
CREATE TABLE tenant_branding (
  tenant_id text PRIMARY KEY,
  logo bytea NULL,
  logo_type text NULL CHECK (logo_type IN ('image/png', 'image/jpeg')),
  footer text NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE tenant_branding ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_branding_tenant_isolation ON tenant_branding
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_branding TO tenant_api_tenant;
