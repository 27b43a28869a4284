-- Receiving (issue 13): suppliers' comprobantes addressed to a tenant's issuers, with what the platform found
-- when it checked them and the deadline to answer; the receiver's answers (MensajeReceptor) are documents
-- of their own (tipo_doc 5/6/7) so they share the submission jobs, follow-up, consultar and webhooks.
-- Same tenancy as 0001: tenant_id in every row, RLS on app.tenant_id, grants to the tenant role.

CREATE TABLE received_documents (
  id uuid PRIMARY KEY,
  tenant_id text NOT NULL,
  clave text NOT NULL,
  -- The tenant's issuer the document is addressed to (its identificacion).
  receptor text NOT NULL,
  -- Document type of the consecutivo: 01 FE, 02 ND, 03 NC, 04 TE, 08 FEC, 09 FEE, 10 REP.
  tipo text NOT NULL,
  emisor_tipo text NOT NULL,
  emisor_numero text NOT NULL,
  emisor_nombre text NOT NULL,
  fecha_emision timestamptz NOT NULL,
  fecha_emision_text text NOT NULL,
  -- The Costa Rica calendar date of the emission (filters desde/hasta).
  fecha_dia date NOT NULL,
  moneda text NOT NULL,
  total text NOT NULL,
  impuestos text NULL,
  xml text NOT NULL,
  -- SHA-256 of the XML bytes: the same XML again answers the same record, another XML for the clave is a conflict.
  xml_sha256 text NOT NULL,
  respuesta_hacienda_xml text NULL,
  findings jsonb NOT NULL,
  vence date NOT NULL,
  origen text NOT NULL CHECK (origen IN ('carga', 'sincronizacion')),
  -- The latest answer (a row of documents); a refused answer leaves the document to be answered again.
  respuesta_document_id uuid NULL REFERENCES documents (id),
  -- The last deadline warning sent: 'proximo' (within two business days) or 'vencido'.
  aviso_vencimiento text NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT received_documents_once UNIQUE (tenant_id, clave)
);

CREATE INDEX received_documents_vence ON received_documents (tenant_id, vence, id);

ALTER TABLE received_documents ENABLE ROW LEVEL SECURITY;
CREATE POLICY received_documents_tenant_isolation ON received_documents
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
GRANT SELECT, INSERT, UPDATE ON received_documents TO tenant_api_tenant;

-- A receiver's answer in documents: `clave` is Hacienda's id of the message, `<clave>-<consecutivo>`;
-- `clave_recibida` the answered document's clave; receptor_* the supplier (the message goes to it).
ALTER TABLE documents ADD COLUMN recibido_id uuid NULL REFERENCES received_documents (id);
ALTER TABLE documents ADD COLUMN clave_recibida text NULL;
CREATE INDEX documents_clave_recibida ON documents (tenant_id, clave_recibida) WHERE clave_recibida IS NOT NULL;
