// Shapes of the tenant's listings (issue 17, read by the dashboard and by clients alike): its documents,
// newest first and paged by an opaque cursor, and its issuers with how long their certificate has left.
import { type Static, Type } from '@sinclair/typebox';
import { EmisorData } from './emisor.schema';
import { CLAVE_PATTERN, ESTADOS_DOCUMENTO } from './submission.schema';

/** The `tipo` filter: the request's tipoDoc, and 5/6/7 for the receiver's answers (MensajeReceptor). */
export const TIPOS_DOCUMENTO = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'] as const;

export const DocumentSummary = Type.Object(
  {
    clave: Type.String({
      pattern: CLAVE_PATTERN,
      description:
        "For an answer (5/6/7), the received document's clave it answers: consultar/documento with it shows the latest answer",
    }),
    tipoDoc: Type.Union(
      TIPOS_DOCUMENTO.map((t) => Type.Literal(t)),
      {
        description:
          '1 invoice, 2 debit note, 3 credit note, 4 ticket, 8 purchase invoice, 9 export invoice, 10 payment receipt; 5/6/7 an answer to a received document',
      },
    ),
    emisor: Type.String({ description: "The issuer's identificacion" }),
    consecutivo: Type.String({ pattern: '^\\d{20}$' }),
    numeroReferencia: Type.Integer(),
    fechaEmision: Type.String({ description: 'FechaEmision as written in the XML (Costa Rica time)' }),
    estado: Type.Union(ESTADOS_DOCUMENTO.map((e) => Type.Literal(e))),
    receptor: Type.Union(
      [
        Type.Object({ tipo: Type.String(), numero: Type.String() }, { additionalProperties: false }),
        Type.Null(),
      ],
      {
        description:
          'null for a ticket without receptor; a foreign receptor (export invoice, ticket or note) has tipo 05',
      },
    ),
    total: Type.Union([Type.String(), Type.Null()], {
      description: 'TotalComprobante, 5 decimals; null for an answer',
    }),
    moneda: Type.Union([Type.String({ pattern: '^[A-Z]{3}$' }), Type.Null()], {
      description: 'CodigoMoneda of the total (ISO 4217, e.g. CRC or USD); null for an answer',
    }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/document-summary.json', additionalProperties: false },
);
export type DocumentSummary = Static<typeof DocumentSummary>;

export const DocumentListResponse = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Array(DocumentSummary),
    cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as ?cursor= for the next page' }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/document-list-response.json', additionalProperties: false },
);
export type DocumentListResponse = Static<typeof DocumentListResponse>;

export const EmisorListItem = Type.Composite(
  [
    EmisorData,
    Type.Object({
      diasParaVencer: Type.Integer({
        description: "Whole days until the certificate's expiry (negative once expired)",
      }),
      porVencer: Type.Boolean({
        description: 'the certificate expires within CERT_EXPIRY_WARNING_DAYS (or has expired)',
      }),
    }),
  ],
  { additionalProperties: false },
);
export type EmisorListItem = Static<typeof EmisorListItem>;

export const EmisorListResponse = Type.Object(
  { status: Type.Literal('success'), data: Type.Array(EmisorListItem) },
  { $id: 'https://schemas.cr-einvoice.dev/emisor-list-response.json', additionalProperties: false },
);
export type EmisorListResponse = Static<typeof EmisorListResponse>;
