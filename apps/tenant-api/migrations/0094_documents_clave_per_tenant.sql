-- A document's clave was unique across every tenant (0002), while its number and everything else is per tenant.
-- A receiver's answer is stored as `<received clave>-<consecutivo>`, which anyone can predict: a tenant that
-- uploaded another tenant's supplier document and answered it first made that tenant's answer with the same
-- numbering fail with a 500 (and learnt from it that the other had answered). Two tenants managing the same
-- company answering the same supplier invoice hit it without any malice. Unique per tenant like the number;
-- the (tenant_id, clave) index serves the lookups by clave, which all name the tenant.
ALTER TABLE documents ADD CONSTRAINT documents_clave_once UNIQUE (tenant_id, clave);
ALTER TABLE documents DROP CONSTRAINT documents_clave_key;
