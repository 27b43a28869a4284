// The tenant's webhook: configuration (`configurar/webhook`), its state and delivery log
// (`consultar/webhook`), replays (`reenviar/webhook`), and the event body POSTed to the tenant's URL
// (the spec's Events payload, plus `clave` and `estado`), signed the Standard Webhooks way.
import { type Static, Type } from '@sinclair/typebox';

const Clave = Type.String({ pattern: '^[0-9]{50}$', description: 'document key, 50 digits' });
const DateTime = Type.String({ format: 'date-time' });

export const WebhookConfigRequest = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'https URL that receives the events (http only to a loopback host in development)',
    }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/webhook-config-request.json', additionalProperties: false },
);
export type WebhookConfigRequest = Static<typeof WebhookConfigRequest>;

export const WebhookConfigResponse = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Object(
      {
        url: Type.String(),
        secret: Type.String({
          pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
          description: 'signing secret, shown only in this answer',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/webhook-config-response.json', additionalProperties: false },
);
export type WebhookConfigResponse = Static<typeof WebhookConfigResponse>;

/** One delivery attempt, as recorded (also listed by `consultar/documento` under `webhook.entregas`). */
export const WebhookDelivery = Type.Object(
  {
    eventId: Type.String({ description: 'the webhook-id, stable across the retries of one event' }),
    intento: Type.Integer({ minimum: 1, description: 'attempt number within the event' }),
    url: Type.String({ description: 'where it was sent; empty when no endpoint was configured' }),
    status: Type.Union([Type.Integer(), Type.Null()], { description: "receiver's HTTP status" }),
    latenciaMs: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    fecha: DateTime,
  },
  { additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookConsultResponse = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Object(
      {
        url: Type.String(),
        activo: Type.Boolean({ description: 'false once the receiver answered 410 Gone' }),
        secretoRotadoEn: Type.Optional(DateTime),
        /** While set (24 h after a rotation), deliveries are signed with the previous secret too. */
        firmaDobleHasta: Type.Optional(DateTime),
        desactivadoEn: Type.Optional(DateTime),
        motivoDesactivacion: Type.Optional(Type.String()),
        entregas: Type.Array(Type.Composite([WebhookDelivery, Type.Object({ clave: Clave })]), {
          maxItems: 20,
          description: 'the latest delivery attempts, newest first',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/webhook-consult-response.json', additionalProperties: false },
);
export type WebhookConsultResponse = Static<typeof WebhookConsultResponse>;

export const WebhookReplayRequest = Type.Object(
  { clave: Clave },
  { $id: 'https://schemas.cr-einvoice.dev/webhook-replay-request.json', additionalProperties: false },
);
export type WebhookReplayRequest = Static<typeof WebhookReplayRequest>;

/** Where a replayed event will go, as the tenant's endpoint stood when the replay was queued. */
export const WEBHOOK_REPLAY_TARGETS = ['activo', 'sin-url', 'desactivado'] as const;

export const WebhookReplayResponse = Type.Object(
  {
    status: Type.Literal('success'),
    message: Type.String({
      description:
        'what was queued and, when the event will not be delivered, why and how to change that (for people; programs read `data`)',
    }),
    data: Type.Object(
      {
        eventId: Type.String({
          description:
            "the queued event's webhook-id; while a replay of the document still waits, that replay's",
        }),
        webhook: Type.Union(
          WEBHOOK_REPLAY_TARGETS.map((t) => Type.Literal(t)),
          {
            description:
              "the tenant's endpoint when the replay was queued: `activo`, the event is sent to it; `sin-url`, no URL is configured, so the event is only recorded as not delivered (set one with `configurar/webhook`); `desactivado`, the receiver answered 410 Gone, so the event is only recorded as not delivered until the URL is saved again with `configurar/webhook`, which reactivates it",
          },
        ),
        desactivadoEn: Type.Optional(
          Type.String({
            format: 'date-time',
            description: 'when the endpoint was deactivated; only with `desactivado`',
          }),
        ),
        motivoDesactivacion: Type.Optional(
          Type.String({
            description: 'why it was deactivated (`receiver answered 410 Gone`); only with `desactivado`',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/webhook-replay-response.json', additionalProperties: false },
);
export type WebhookReplayResponse = Static<typeof WebhookReplayResponse>;

export const ESTADOS_FINALES = ['aceptado', 'rechazado', 'error'] as const;

/** What an event is about: the issued document's kind, or the receiver's answer to a supplier's document. */
export const FOLIO_TYPES = [
  'INVOICE',
  'CREDIT_NOTE',
  'DEBIT_NOTE',
  'PAYMENT_RECEIPT',
  'RECEIVER_MESSAGE',
] as const;
export type FolioType = (typeof FOLIO_TYPES)[number];
export type EstadoFinal = (typeof ESTADOS_FINALES)[number];

/** The body POSTed to the tenant's URL on each final state of a document. */
export const WebhookEventPayload = Type.Object(
  {
    folioId: Type.String({
      description:
        'the clave of the processed document; for a RECEIVER_MESSAGE, `<clave>-<consecutivoReceptor>` (its id at Hacienda)',
    }),
    folioType: Type.Unsafe<FolioType>({ type: 'string', enum: [...FOLIO_TYPES] }),
    folioDetails: Type.Array(
      Type.Object(
        {
          fileType: Type.Union([Type.Literal('XML'), Type.Literal('PDF')]),
          encodedFile: Type.String({
            description:
              "base64: Hacienda's MensajeHacienda XML; a RECEIVER_MESSAGE carries the signed MensajeReceptor first, then Hacienda's answer; an accepted document's PDF (fileType PDF, the bytes of GET /api/descargar/{clave}/pdf) comes last",
          }),
        },
        { additionalProperties: false },
      ),
      { description: "empty when Hacienda gave no answer document (estado 'error' before processing)" },
    ),
    clave: Clave,
    estado: Type.Unsafe<EstadoFinal>({ type: 'string', enum: [...ESTADOS_FINALES] }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/webhook-event-payload.json', additionalProperties: false },
);
export type WebhookEventPayload = Static<typeof WebhookEventPayload>;
