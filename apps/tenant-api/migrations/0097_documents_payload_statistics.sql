-- The columns of documents that no statement filters, joins or sorts on get no planner statistics (ADR 0057):
-- an ANALYZE of documents computed them for every column of its 3,000-row sample, half of its time (on PGlite,
-- where an analyse holds the one session: 30 ms with them, 16.5 without, on 4,781 documents). The planner
-- never reads them: they are the document's payload, read back by id. respuesta_xml keeps its statistics
-- (the mail jobs filter on `respuesta_xml IS NOT NULL`), and so does every key, state and date.
ALTER TABLE documents
  ALTER COLUMN xml SET STATISTICS 0,
  ALTER COLUMN totals SET STATISTICS 0,
  ALTER COLUMN detalle SET STATISTICS 0,
  ALTER COLUMN respuesta_verificacion SET STATISTICS 0,
  ALTER COLUMN respuesta_totales SET STATISTICS 0,
  ALTER COLUMN callback_token_sealed SET STATISTICS 0,
  ALTER COLUMN request_hash SET STATISTICS 0,
  ALTER COLUMN error_cause SET STATISTICS 0,
  ALTER COLUMN fecha_emision_text SET STATISTICS 0,
  ALTER COLUMN correo_copias SET STATISTICS 0;
