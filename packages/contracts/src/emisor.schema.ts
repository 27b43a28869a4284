// Spec endpoints 4, 5 and 6: the issuer (emisor) registration body, the query body and its result.
import { type Static, Type } from '@sinclair/typebox';

export const TIPOS_IDENTIFICACION_EMISOR = [1, 2, 3, 4] as const;

const Base64 = (description: string, maxLength: number) =>
  Type.String({
    minLength: 4,
    maxLength,
    // Checked by the service (strict alphabet and padding), which names the field with a readable reason.
    description,
  });

export const EmisorUbicacion = Type.Object(
  {
    provincia: Type.String({ pattern: '^[1-7]$', description: 'province code, 1 to 7' }),
    // The XSD's Canton and Distrito are positive integers (01 to 99): "00" would fail every document.
    canton: Type.String({ pattern: '^(0[1-9]|[1-9][0-9])$', description: 'canton code, 2 digits, 01 to 99' }),
    distrito: Type.String({
      pattern: '^(0[1-9]|[1-9][0-9])$',
      description: 'district code, 2 digits, 01 to 99',
    }),
    barrio: Type.String({ pattern: '^[0-9]{2}$', description: 'neighbourhood code, 2 digits' }),
    direccion: Type.String({
      minLength: 5,
      maxLength: 250,
      description: 'detailed address, 5-250 characters',
    }),
  },
  { additionalProperties: false },
);
export type EmisorUbicacion = Static<typeof EmisorUbicacion>;

export const EmisorRegistration = Type.Object(
  {
    identificacion: Type.Integer({ minimum: 1, maximum: 999_999_999_999, description: 'issuer id, digits' }),
    tipoIdentificacion: Type.Unsafe<1 | 2 | 3 | 4>({
      type: 'integer',
      enum: [...TIPOS_IDENTIFICACION_EMISOR],
      description: '1 física, 2 jurídica, 3 DIMEX, 4 NITE',
    }),
    codigoActividad: Type.Number({
      minimum: 0,
      exclusiveMaximum: 1_000_000,
      description: 'economic activity code, e.g. 6201.0 or 721001',
    }),
    sucursal: Type.Integer({ minimum: 1, maximum: 999, description: 'branch, 1 is the head office' }),
    nombreComercial: Type.String({ minLength: 1, maxLength: 80, format: 'single-line' }),
    telefono: Type.String({
      pattern: '^\\+?[0-9][0-9 -]{6,22}[0-9]$',
      description: '8 to 20 digits, optionally with +, spaces or hyphens',
    }),
    correoElectronico: Type.String({ format: 'email', maxLength: 160 }),
    ubicacion: EmisorUbicacion,
    ambiente: Type.Unsafe<1 | 2>({ type: 'integer', enum: [1, 2], description: '1 production, 2 test' }),
    usuarioHacienda: Type.String({ minLength: 1, maxLength: 200 }),
    claveHacienda: Base64('password of the Hacienda system, base64', 2048),
    pinCertificado: Type.String({ minLength: 1, maxLength: 128 }),
    certificadoHacienda: Base64('the .p12 file, base64', 200_000),
    nombre: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 100,
        format: 'single-line',
        description: "legal name; default the certificate's",
      }),
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/emisor-registration.json', additionalProperties: false },
);
export type EmisorRegistration = Static<typeof EmisorRegistration>;

export const EmisorQuery = Type.Object(
  { identificacion: Type.Integer({ minimum: 1, maximum: 999_999_999_999 }) },
  { $id: 'https://schemas.cr-einvoice.dev/emisor-query.json', additionalProperties: false },
);
export type EmisorQuery = Static<typeof EmisorQuery>;

export const EmisorData = Type.Object(
  {
    identificacion: Type.Integer(),
    tipoIdentificacion: Type.Integer(),
    nombreComercial: Type.String(),
    correoElectronico: Type.String(),
    telefono: Type.String(),
    ambiente: Type.Integer(),
    certificado: Type.Object(
      {
        sujeto: Type.String({
          description: "the certificate's subject, e.g. serialNumber=CPJ-3-101-123456, …",
        }),
        vence: Type.String({ format: 'date-time', description: 'expiry (notAfter), ISO 8601' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type EmisorData = Static<typeof EmisorData>;

export const EmisorQueryResponse = Type.Object(
  { status: Type.Literal('success'), data: EmisorData },
  { $id: 'https://schemas.cr-einvoice.dev/emisor-query-response.json', additionalProperties: false },
);
export type EmisorQueryResponse = Static<typeof EmisorQueryResponse>;
