-- The currency of each document (CodigoMoneda, ISO 4217), so that GET /api/documentos can list its total
-- with it: the dashboard showed a USD invoice's total as colones. Answers (MensajeReceptor, tipo_doc 5/6/7)
-- have none. Documents stored before this column read it back from their signed XML (CRC when the XML names
-- none). A payload column like totals: no statement filters on it, so no planner statistics (ADR 0057).
ALTER TABLE documents ADD COLUMN moneda text NULL;
UPDATE documents
  SET moneda = COALESCE(substring(xml FROM '<CodigoMoneda>([A-Z]{3})</CodigoMoneda>'), 'CRC')
  WHERE tipo_doc NOT IN ('5', '6', '7');
ALTER TABLE documents ALTER COLUMN moneda SET STATISTICS 0;
