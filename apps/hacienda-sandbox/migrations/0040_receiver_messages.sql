-- Receiver messages (MensajeReceptor, REFERENCE §6.2) and the GET /comprobantes listing (§4.5). A
-- MensajeReceptor is stored in `documents` like a comprobante, under Hacienda's own status id
-- `<clave>-<consecutivoReceptor>`; `referenced_clave` is the answered document's clave. For a comprobante,
-- `referenced_clave` is the first document its InformacionReferencia names (NC/ND → notasCredito/Debito),
-- and `tipo` the document type of the consecutivo (01..10).
ALTER TABLE documents ADD COLUMN kind text NOT NULL DEFAULT 'comprobante'
  CHECK (kind IN ('comprobante', 'mensaje_receptor'));
ALTER TABLE documents ADD COLUMN tipo text NULL;
ALTER TABLE documents ADD COLUMN referenced_clave text NULL;

CREATE INDEX documents_referenced ON documents (referenced_clave) WHERE referenced_clave IS NOT NULL;
CREATE INDEX documents_receptor ON documents (receptor_numero, received_at) WHERE kind = 'comprobante';
CREATE INDEX documents_emisor ON documents (emisor_numero, received_at) WHERE kind = 'comprobante';
