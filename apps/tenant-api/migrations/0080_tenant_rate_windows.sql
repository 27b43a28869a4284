-- Per-tenant rate limits (Hacienda lookups, issuer writes, webhook replays, branding changes) counted in the
-- database, so every process and replica of the tenant-api shares one window per tenant (ADR 0037). One row
-- per tenant and limit: the times (ms since the epoch) of the calls still inside the window, at most the
-- limit of them, and whether the last call was granted. Tenancy as 0001 (tenant_id, RLS on app.tenant_id).
CREATE TABLE tenant_rate_windows (
  tenant_id text NOT NULL,
  name text NOT NULL,
  hits bigint[] NOT NULL,
  granted boolean NOT NULL,
  PRIMARY KEY (tenant_id, name)
);

ALTER TABLE tenant_rate_windows ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rate_windows_tenant_isolation ON tenant_rate_windows
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE ON tenant_rate_windows TO tenant_api_tenant;
