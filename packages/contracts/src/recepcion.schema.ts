// Shapes of the receiving routes (issue 13): a supplier's comprobante uploaded or imported for one of the
// tenant's issuers, its findings and deadline, the receiver's answer (MensajeReceptor) and the import from
// Hacienda's /comprobantes listing.
import { type Static, Type } from '@sinclair/typebox';
import { CLAVE_PATTERN, ESTADOS_DOCUMENTO } from './submission.schema';

const ID = 'https://schemas.cr-einvoice.dev/recepcion';
// Component names come from the last path segment: every id says `recepcion-…` to stay unique.

export const ESTADOS_RECEPCION = ['pendiente', 'respondiendo', 'respondido'] as const;
export type EstadoRecepcion = (typeof ESTADOS_RECEPCION)[number];

const IssuerId = Type.String({
  pattern: '^[0-9]{9,12}$',
  description: "The tenant's issuer that received the document (its identificacion)",
});

export const RecepcionDocumentRequest = Type.Object(
  {
    receptor: IssuerId,
    xml: Type.String({ minLength: 1, description: "Base64 of the supplier's signed comprobante" }),
    respuestaHacienda: Type.Optional(
      Type.String({ minLength: 1, description: "Base64 of Hacienda's MensajeHacienda for the document" }),
    ),
  },
  { $id: `${ID}-document-request.json`, additionalProperties: false },
);
export type RecepcionDocumentRequest = Static<typeof RecepcionDocumentRequest>;

export const RecepcionFinding = Type.Object(
  {
    code: Type.String({ description: 'xsd, signature, certificate, arithmetic, hacienda, …' }),
    severity: Type.Union([Type.Literal('error'), Type.Literal('warning'), Type.Literal('info')]),
    message: Type.String(),
  },
  { additionalProperties: false },
);
export type RecepcionFinding = Static<typeof RecepcionFinding>;

const Party = Type.Object(
  { tipo: Type.String(), numero: Type.String(), nombre: Type.String() },
  { additionalProperties: false },
);

export const RecepcionRespuestaSummary = Type.Object(
  {
    mensaje: Type.Integer({ description: '1 aceptado, 2 aceptación parcial, 3 rechazado' }),
    consecutivo: Type.String({ pattern: '^\\d{20}$' }),
    estado: Type.String({ description: "The MensajeReceptor's state at Hacienda (pendiente … aceptado)" }),
  },
  { additionalProperties: false },
);

export const RecepcionDocumentData = Type.Object(
  {
    clave: Type.String({ pattern: CLAVE_PATTERN }),
    tipo: Type.String({
      description: 'Document type of the consecutivo: 01 FE, 02 ND, 03 NC, 04 TE, 08 FEC, 09 FEE, 10 REP',
    }),
    receptor: Type.String({ description: "The tenant's issuer the document is addressed to" }),
    emisor: Party,
    fechaEmision: Type.String(),
    moneda: Type.String(),
    total: Type.String({ description: 'TotalComprobante, 5 decimals' }),
    impuestos: Type.Union([Type.String(), Type.Null()], { description: 'TotalImpuesto, null without tax' }),
    findings: Type.Array(RecepcionFinding),
    vence: Type.String({
      format: 'date',
      description: 'Last day to answer (8th business day of the next month)',
    }),
    estado: Type.Union(ESTADOS_RECEPCION.map((e) => Type.Literal(e))),
    origen: Type.Union([Type.Literal('carga'), Type.Literal('sincronizacion')]),
    respuesta: Type.Union([RecepcionRespuestaSummary, Type.Null()]),
    recibido: Type.String({ format: 'date-time' }),
  },
  { $id: `${ID}-document-data.json`, additionalProperties: false },
);
export type RecepcionDocumentData = Static<typeof RecepcionDocumentData>;

export const RecepcionDocumentResponse = Type.Object(
  { status: Type.Literal('success'), data: RecepcionDocumentData },
  { $id: `${ID}-document-response.json`, additionalProperties: false },
);
export type RecepcionDocumentResponse = Static<typeof RecepcionDocumentResponse>;

export const RecepcionListResponse = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Array(RecepcionDocumentData),
    cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as ?cursor= for the next page' }),
  },
  { $id: `${ID}-list-response.json`, additionalProperties: false },
);
export type RecepcionListResponse = Static<typeof RecepcionListResponse>;

const Amount = Type.Union([
  Type.String({ pattern: '^\\d{1,13}(\\.\\d{1,5})?$' }),
  Type.Number({ minimum: 0 }),
]);

export const RecepcionRespuestaRequest = Type.Object(
  {
    mensaje: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)]),
    detalleMensaje: Type.Optional(Type.String({ minLength: 1, maxLength: 160 })),
    codigoActividad: Type.Optional(Type.String({ minLength: 6, maxLength: 6 })),
    condicionImpuesto: Type.Optional(Type.Union(['01', '02', '03', '04', '05'].map((c) => Type.Literal(c)))),
    montoTotalImpuestoAcreditar: Type.Optional(Amount),
    montoTotalDeGastoAplicable: Type.Optional(Amount),
    numeroReferencia: Type.Integer({ minimum: 1, maximum: 9999999999 }),
    sucursal: Type.Optional(Type.Integer({ minimum: 1, maximum: 999 })),
    terminal: Type.Optional(Type.Integer({ minimum: 1, maximum: 99999 })),
  },
  { $id: `${ID}-respuesta-request.json`, additionalProperties: false },
);
export type RecepcionRespuestaRequest = Static<typeof RecepcionRespuestaRequest>;

export const RecepcionRespuestaResponse = Type.Object(
  {
    status: Type.Literal('success'),
    message: Type.String(),
    data: Type.Object(
      {
        clave: Type.String({ pattern: CLAVE_PATTERN }),
        mensaje: Type.Integer(),
        consecutivo: Type.String({ pattern: '^\\d{20}$' }),
        estado: Type.Union(
          ESTADOS_DOCUMENTO.map((e) => Type.Literal(e)),
          {
            description:
              "the answer's state: pendiente when just signed; when the same request is sent again, the state its answer has reached",
          },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { $id: `${ID}-respuesta-response.json`, additionalProperties: false },
);
export type RecepcionRespuestaResponse = Static<typeof RecepcionRespuestaResponse>;

export const RecepcionSincronizarRequest = Type.Object(
  { receptor: IssuerId },
  { $id: `${ID}-sincronizar-request.json`, additionalProperties: false },
);
export type RecepcionSincronizarRequest = Static<typeof RecepcionSincronizarRequest>;

export const RecepcionSincronizarResponse = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Object(
      {
        listados: Type.Integer({ minimum: 0, description: 'Documents Hacienda listed for the issuer' }),
        importados: Type.Array(Type.String({ pattern: CLAVE_PATTERN })),
        yaRegistrados: Type.Integer({ minimum: 0 }),
        omitidos: Type.Array(
          Type.Object({ clave: Type.String(), motivo: Type.String() }, { additionalProperties: false }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { $id: `${ID}-sincronizar-response.json`, additionalProperties: false },
);
export type RecepcionSincronizarResponse = Static<typeof RecepcionSincronizarResponse>;

/** The `recepcion.deadline` webhook event: a received document still unanswered close to `vence`. */
export const RecepcionDeadlineEvent = Type.Object(
  {
    type: Type.Literal('recepcion.deadline'),
    clave: Type.String({ pattern: CLAVE_PATTERN }),
    receptor: Type.String(),
    emisor: Party,
    total: Type.String(),
    vence: Type.String({ format: 'date' }),
    diasHabilesRestantes: Type.Integer({
      description:
        'Business days left after today (0 on the last day); once overdue, minus the business days since the deadline, and never above −1',
    }),
  },
  { $id: `${ID}-deadline-event.json`, additionalProperties: false },
);
export type RecepcionDeadlineEvent = Static<typeof RecepcionDeadlineEvent>;
