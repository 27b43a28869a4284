// Shapes of the submission routes: POST /api/enviar/items' answer, POST /api/consultar/documento and its
// answer (the document's state, Hacienda's message, the webhook deliveries and the e-mails).
import { type Static, Type } from '@sinclair/typebox';
import { CorreoEnvio } from './delivery.schema';

export const CLAVE_PATTERN = '^\\d{50}$';

export const ESTADOS_DOCUMENTO = ['pendiente', 'enviado', 'aceptado', 'rechazado', 'error'] as const;

export const EnviarItemsResponse = Type.Object(
  {
    status: Type.Literal('success'),
    message: Type.String(),
    clave: Type.String({ pattern: CLAVE_PATTERN, description: 'The 50-digit clave of the document' }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/enviar-items-response.json', additionalProperties: false },
);
export type EnviarItemsResponse = Static<typeof EnviarItemsResponse>;

export const DocumentQuery = Type.Object(
  { clave: Type.String({ pattern: CLAVE_PATTERN, description: 'The 50-digit clave' }) },
  { $id: 'https://schemas.cr-einvoice.dev/document-query.json', additionalProperties: false },
);
export type DocumentQuery = Static<typeof DocumentQuery>;

export const DetalleMensajeItem = Type.Object(
  {
    codigo: Type.Integer(),
    mensaje: Type.String(),
    fila: Type.Integer(),
    columna: Type.Integer(),
  },
  { additionalProperties: false },
);
export type DetalleMensajeItem = Static<typeof DetalleMensajeItem>;

export const WebhookEntrega = Type.Object(
  {
    eventId: Type.String({ description: 'webhook-id, stable across the retries of one event' }),
    intento: Type.Integer({ minimum: 1 }),
    url: Type.String(),
    status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status, null when none' }),
    latenciaMs: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    fecha: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type WebhookEntrega = Static<typeof WebhookEntrega>;

/**
 * How many entries a list of consultar/documento has in all, of which it shows only the latest (resends make
 * them grow without bound). Always sent; optional so an answer of an earlier version still validates.
 */
const shownOf = (what: string) =>
  Type.Optional(
    Type.Integer({
      minimum: 0,
      description: `how many ${what} the document has in all; more than the list shows when greater than its length`,
    }),
  );

export const DocumentData = Type.Object(
  {
    clave: Type.String({ pattern: CLAVE_PATTERN }),
    tipoDoc: Type.String({
      description:
        "The request's tipoDoc: 1 invoice, 2 debit note, 3 credit note, 4 ticket, 8 purchase invoice, 9 export invoice, 10 payment receipt (5/6/7: an answer to a received document)",
    }),
    emisor: Type.String({ description: "The issuer's identificacion" }),
    numeroReferencia: Type.Integer(),
    consecutivo: Type.String({ pattern: '^\\d{20}$' }),
    fechaEmision: Type.String({ description: 'FechaEmision as written in the XML' }),
    estado: Type.Union(ESTADOS_DOCUMENTO.map((e) => Type.Literal(e))),
    mensajeHacienda: Type.Object(
      {
        mensaje: Type.Union([Type.Integer(), Type.Null()], {
          description: 'MensajeHacienda Mensaje: 1 aceptado, 3 rechazado; null until final',
        }),
        detalle: Type.Array(DetalleMensajeItem),
        errorCause: Type.Optional(
          Type.String({ description: 'X-Error-Cause when recepción refused the submission' }),
        ),
      },
      { additionalProperties: false },
    ),
    intentos: Type.Integer({ minimum: 0, description: 'Submissions to Hacienda so far' }),
    historial: Type.Array(
      Type.Object(
        {
          estado: Type.Union(ESTADOS_DOCUMENTO.map((e) => Type.Literal(e))),
          fecha: Type.String({ format: 'date-time' }),
          detalle: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { description: 'Every state the document entered, oldest first' },
    ),
    webhook: Type.Object(
      {
        entregas: Type.Array(WebhookEntrega, {
          maxItems: 20,
          description: "the document's latest 20 delivery attempts, oldest first",
        }),
        total: shownOf('delivery attempts'),
      },
      { additionalProperties: false },
    ),
    correo: Type.Object(
      {
        envios: Type.Array(CorreoEnvio, {
          maxItems: 20,
          description:
            'the latest 20 e-mails to the receptor (after acceptance, and each resend), oldest first, with every attempt',
        }),
        total: shownOf('e-mails'),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type DocumentData = Static<typeof DocumentData>;

export const DocumentQueryResponse = Type.Object(
  { status: Type.Literal('success'), data: DocumentData },
  { $id: 'https://schemas.cr-einvoice.dev/document-query-response.json', additionalProperties: false },
);
export type DocumentQueryResponse = Static<typeof DocumentQueryResponse>;
