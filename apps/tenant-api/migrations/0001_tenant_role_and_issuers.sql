-- Row-level security is the second wall of tenant isolation (the first is tenant_id in every query).
-- Tenant work runs under the non-superuser role tenant_api_tenant (SET LOCAL ROLE inside the transaction)
-- with app.tenant_id set transaction-locally; the policies only show and accept that tenant's rows.
-- Roles are cluster-global and several databases may migrate at once, so creation tolerates a racing twin.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tenant_api_tenant') THEN
    BEGIN
      CREATE ROLE tenant_api_tenant NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL;
    END;
  END IF;
  -- The connecting user must be able to SET ROLE to it (a superuser always can).
  IF NOT pg_has_role(current_user, 'tenant_api_tenant', 'MEMBER') THEN
    EXECUTE format('GRANT tenant_api_tenant TO %I', current_user);
  END IF;
END
$$;

GRANT USAGE ON SCHEMA public TO tenant_api_tenant;

CREATE TABLE issuers (
  tenant_id text NOT NULL,
  identificacion text NOT NULL,
  tipo_identificacion smallint NOT NULL,
  nombre text NOT NULL,
  nombre_comercial text NOT NULL,
  codigo_actividad text NOT NULL,
  sucursal integer NOT NULL,
  telefono text NOT NULL,
  correo_electronico text NOT NULL,
  provincia text NOT NULL,
  canton text NOT NULL,
  distrito text NOT NULL,
  barrio text NOT NULL,
  direccion text NOT NULL,
  ambiente smallint NOT NULL,
  usuario_hacienda text NOT NULL,
  -- Secrets, sealed by the secret box (AES-256-GCM, bound to tenant and issuer); never stored in clear.
  clave_hacienda_sealed text NOT NULL,
  pin_sealed text NOT NULL,
  certificate_sealed text NOT NULL,
  secrets_key_id text NOT NULL,
  certificate_subject text NOT NULL,
  certificate_serial text NOT NULL,
  certificate_not_before timestamptz NOT NULL,
  certificate_not_after timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, identificacion)
);

CREATE INDEX issuers_certificate_not_after ON issuers (certificate_not_after);

ALTER TABLE issuers ENABLE ROW LEVEL SECURITY;
CREATE POLICY issuers_tenant_isolation ON issuers
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON issuers TO tenant_api_tenant;
