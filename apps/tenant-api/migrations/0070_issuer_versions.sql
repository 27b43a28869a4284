-- Every change to an issuer gets a new version, so each process caches the issuer's opened signing material
-- (decrypted key, certificate, Hacienda credentials) by (tenant, identificacion, version) and reads the
-- sealed .p12 again only when the version moved (issue 15: a submission read the whole row, certificate
-- included, every time). A sequence rather than a per-row counter: an issuer deleted and registered again
-- never gets a version a process may still hold.
CREATE SEQUENCE issuer_versions;
ALTER TABLE issuers ADD COLUMN version bigint NOT NULL DEFAULT nextval('issuer_versions');

CREATE FUNCTION issuers_next_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := nextval('issuer_versions');
  RETURN NEW;
END
$$;

CREATE TRIGGER issuers_version BEFORE UPDATE ON issuers
  FOR EACH ROW EXECUTE FUNCTION issuers_next_version();

GRANT USAGE ON SEQUENCE issuer_versions TO tenant_api_tenant;
