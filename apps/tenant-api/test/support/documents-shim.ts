// TEST-ONLY stand-in for the `documents` table of migration 0002 (owned by the submission work, not yet on
// this branch), with the columns fixed in the interface agreement. Delete once 0002_documents.sql is merged.
import type { Migration } from '@cr/service-kit';

export const documentsShimMigrations: Migration[] = [
  {
    id: 'test_shim_documents',
    sql: `
CREATE TABLE documents (
  id uuid PRIMARY KEY,
  tenant_id text NOT NULL,
  clave text NOT NULL UNIQUE,
  tipo_doc text,
  emisor text,
  numero_referencia bigint,
  consecutivo text,
  fecha_emision timestamptz,
  estado text NOT NULL,
  xml text NOT NULL,
  respuesta_xml text NULL,
  mensaje smallint NULL,
  detalle jsonb NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE documents ENABLE ROW LEVEL SECURITY;
CREATE POLICY documents_tenant_isolation ON documents
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON documents TO tenant_api_tenant;
`,
  },
];
