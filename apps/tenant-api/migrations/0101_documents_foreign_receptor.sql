-- A document to a foreign receptor (Identificacion Tipo 05: a ticket, a note or an export invoice) now keeps
-- that receptor in receptor_tipo/receptor_numero, so GET /api/documentos shows it and filters by it: it
-- listed an export invoice with `receptor: null`, as if it had none. POST /recepcion still names national
-- receptors only (submit-job.ts). Documents stored before this read it back from their signed XML, which
-- the generator writes without whitespace and with Nombre escaped (no `<` inside it).
UPDATE documents d
  SET receptor_tipo = m.parts[1], receptor_numero = m.parts[2]
  FROM (
    SELECT id,
           regexp_match(xml, '<Receptor><Nombre>[^<]*</Nombre><Identificacion><Tipo>(05)</Tipo><Numero>([A-Za-z0-9]{1,20})</Numero></Identificacion>') AS parts
    FROM documents
    WHERE receptor_tipo IS NULL AND clave_recibida IS NULL AND tipo_doc IN ('1', '2', '3', '4', '9')
  ) m
  WHERE d.id = m.id AND m.parts IS NOT NULL;
