-- The whole v4.4 document set (issue 12): tipo_doc now also takes '2' (nota de débito), '8' (factura de
-- compra), '9' (factura de exportación) and '10' (recibo de pago) beside '1', '3', '4' and the receiver's
-- answers '5'/'6'/'7' (0040). folio_type is the request's folioType, echoed in the webhook event; rows
-- written before it existed were all INVOICE (a receiver's answer now stores RECEIVER_MESSAGE). For a factura de compra the receptor_* columns hold the
-- supplier (the XML's Emisor), the counterparty the issuer names in POST /recepcion (docs/decisions/0010).

ALTER TABLE documents
  ADD CONSTRAINT documents_tipo_doc_known CHECK (tipo_doc IN ('1', '2', '3', '4', '5', '6', '7', '8', '9', '10'));

ALTER TABLE documents
  ADD COLUMN folio_type text NOT NULL DEFAULT 'INVOICE'
    CONSTRAINT documents_folio_type_known CHECK (folio_type IN ('INVOICE', 'CREDIT_NOTE', 'DEBIT_NOTE', 'PAYMENT_RECEIPT', 'RECEIVER_MESSAGE'));
