-- GET /api/documentos lists a tenant's documents newest emission first and pages by (fecha_emision, id):
-- this index serves both the order and the cursor's row comparison without a sort of the whole tenant.
CREATE INDEX documents_tenant_emission ON documents (tenant_id, fecha_emision DESC, id DESC);
