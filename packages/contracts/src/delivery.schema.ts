// Delivery to the receptor: the tenant's branding of the PDF (`configurar/marca`), its SMTP settings
// (`configurar/correo`), a resend (`reenviar/correo`) and the e-mail log `consultar/documento` shows.
import { type Static, Type } from '@sinclair/typebox';

const Clave = Type.String({ pattern: '^\\d{50}$', description: 'document key, 50 digits' });
const DateTime = Type.String({ format: 'date-time' });
/**
 * RFC 5321 allows 254 characters; the pattern refuses spaces, angle brackets and CR/LF (header injection).
 * The domain's labels exclude the dot that separates them: with one class for both, `a@....…` made the
 * engine try every split (quadratic, and ajv runs the pattern even past maxLength with allErrors).
 */
export const EmailAddress = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^[^\\s@<>,;"]+@[^\\s@<>,;".]+(?:\\.[^\\s@<>,;".]+)+$',
  description: 'an e-mail address',
});

export const PDF_FORMATOS = ['carta', 'tiquete'] as const;

export const MarcaConfigRequest = Type.Object(
  {
    logo: Type.Optional(
      Type.Union([
        Type.String({
          minLength: 8,
          maxLength: 204_800,
          pattern: '^[A-Za-z0-9+/]+={0,2}$',
          description:
            'PNG or JPEG, base64: at most 150 KB decoded, 2 megapixels and 4096 pixels a side, and read whole (a damaged image is refused); null or absent removes it',
        }),
        Type.Null(),
      ]),
    ),
    pieDePagina: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 500, description: 'text printed under Hacienda’s legend' }),
        Type.Null(),
      ]),
    ),
  },
  {
    $id: 'https://schemas.cr-einvoice.dev/marca-config-request.json',
    additionalProperties: false,
    description: 'Replaces the branding of every PDF of the tenant (what is absent is removed)',
  },
);
export type MarcaConfigRequest = Static<typeof MarcaConfigRequest>;

export const MarcaConfigResponse = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Object(
      {
        logo: Type.Union(
          [
            Type.Object(
              {
                tipo: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg')]),
                bytes: Type.Integer({ minimum: 1 }),
              },
              { additionalProperties: false },
            ),
            Type.Null(),
          ],
          { description: 'the stored logo, or null' },
        ),
        pieDePagina: Type.Union([Type.String(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/marca-config-response.json', additionalProperties: false },
);
export type MarcaConfigResponse = Static<typeof MarcaConfigResponse>;

/** Query of GET /api/descargar/{clave}/pdf. */
export const PdfQuery = Type.Object(
  {
    formato: Type.Optional(
      Type.Union(
        PDF_FORMATOS.map((f) => Type.Literal(f)),
        { description: 'carta (letter) or tiquete (80 mm); default tiquete for a TE, carta otherwise' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type PdfQuery = Static<typeof PdfQuery>;

export const CorreoConfigRequest = Type.Union(
  [
    Type.Object(
      {
        host: Type.String({
          minLength: 1,
          maxLength: 253,
          pattern: '^[A-Za-z0-9.-]+$',
          description: 'SMTP server',
        }),
        port: Type.Integer({
          minimum: 1,
          maximum: 65535,
          description: "25, 465, 587 or a port from 1024 (other services' ports are refused)",
        }),
        secure: Type.Optional(
          Type.Boolean({
            description: 'TLS from the first byte (port 465); default true for 465, else STARTTLS',
          }),
        ),
        requiereTls: Type.Optional(
          Type.Boolean({
            description:
              'default true: STARTTLS is required before AUTH and the message, and an attempt to a server that does not offer it fails with nothing sent (ignored with `secure`, which is TLS from the first byte); false only for a server without TLS, and then no password is accepted',
          }),
        ),
        usuario: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
        password: Type.Optional(
          Type.String({ minLength: 1, maxLength: 512, description: 'stored sealed, never shown again' }),
        ),
        remitente: EmailAddress,
        nombreRemitente: Type.Optional(
          Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\r\\n<>"]+$' }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        predeterminado: Type.Literal(true, { description: "remove the tenant's server: use the platform's" }),
      },
      { additionalProperties: false },
    ),
  ],
  { $id: 'https://schemas.cr-einvoice.dev/correo-config-request.json' },
);
export type CorreoConfigRequest = Static<typeof CorreoConfigRequest>;

export const CorreoConfigResponse = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Object(
      {
        origen: Type.Union([Type.Literal('tenant'), Type.Literal('plataforma')], {
          description: "whose SMTP server sends the tenant's e-mail",
        }),
        host: Type.Union([Type.String(), Type.Null()]),
        port: Type.Union([Type.Integer(), Type.Null()]),
        secure: Type.Union([Type.Boolean(), Type.Null()]),
        requiereTls: Type.Union([Type.Boolean(), Type.Null()], {
          description:
            "whether STARTTLS is required before AUTH and the message on the tenant's server; null for the platform's",
        }),
        usuario: Type.Union([Type.String(), Type.Null()]),
        tienePassword: Type.Boolean(),
        remitente: Type.Union([Type.String(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/correo-config-response.json', additionalProperties: false },
);
export type CorreoConfigResponse = Static<typeof CorreoConfigResponse>;

export const CorreoResendRequest = Type.Object(
  {
    clave: Clave,
    destinatarios: Type.Optional(
      Type.Array(EmailAddress, {
        minItems: 1,
        maxItems: 10,
        description: "default: the receptor's correoElectronico and the request's copias",
      }),
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/correo-resend-request.json', additionalProperties: false },
);
export type CorreoResendRequest = Static<typeof CorreoResendRequest>;

export const CorreoResendResponse = Type.Object(
  {
    status: Type.Literal('success'),
    message: Type.String(),
    data: Type.Object({ envioId: Type.String() }, { additionalProperties: false }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/correo-resend-response.json', additionalProperties: false },
);
export type CorreoResendResponse = Static<typeof CorreoResendResponse>;

export const ESTADOS_ENVIO = ['pendiente', 'enviado', 'fallido'] as const;

/** One attempt to hand a message to the SMTP server. */
export const CorreoIntento = Type.Object(
  {
    intento: Type.Integer({ minimum: 1 }),
    ok: Type.Boolean(),
    codigo: Type.Union([Type.Integer(), Type.Null()], { description: "the SMTP server's reply code" }),
    respuesta: Type.Union([Type.String(), Type.Null()], { description: "the server's reply or the error" }),
    fecha: DateTime,
  },
  { additionalProperties: false },
);
export type CorreoIntento = Static<typeof CorreoIntento>;

/** One e-mail of a document (the one after acceptance, or a resend) and its attempts. */
export const CorreoEnvio = Type.Object(
  {
    envioId: Type.String(),
    motivo: Type.Union([Type.Literal('aceptado'), Type.Literal('reenvio')]),
    destinatarios: Type.Array(Type.String()),
    estado: Type.Union(ESTADOS_ENVIO.map((e) => Type.Literal(e))),
    intentos: Type.Array(CorreoIntento),
    fecha: DateTime,
  },
  { additionalProperties: false },
);
export type CorreoEnvio = Static<typeof CorreoEnvio>;
