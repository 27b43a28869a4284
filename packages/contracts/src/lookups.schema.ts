// Spec endpoints 7 and 8 and the taxpayer lookup: POST /api/hacienda/cabys, /api/hacienda/exoneracion and
// /api/hacienda/contribuyente (bodies and results), and the warnings an issuer registration may carry.
import { type Static, Type } from '@sinclair/typebox';

export const CABYS_NAME_MAX = 200;

export const CabysQuery = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: CABYS_NAME_MAX,
      description:
        'search text (words, a word prefix, or a 13-digit CABYS code); the service refuses one of only spaces',
    }),
    limite: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 200, description: 'how many results, default 50' }),
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/cabys-query.json', additionalProperties: false },
);
export type CabysQuery = Static<typeof CabysQuery>;

export const CabysResult = Type.Object(
  {
    codigo: Type.String({ pattern: '^[0-9]{13}$', description: 'CABYS code, 13 digits' }),
    descripcion: Type.String(),
    impuesto: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'usual VAT percentage (13, 4, 2, 1, 0): a hint, the line may use another rate',
    }),
  },
  { additionalProperties: false },
);
export type CabysResult = Static<typeof CabysResult>;

export const CabysResponse = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Array(CabysResult, { maxItems: 200, description: 'best match first' }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/cabys-response.json', additionalProperties: false },
);
export type CabysResponse = Static<typeof CabysResponse>;

/** Hacienda's authorization numbers as /fe/ex takes them (REFERENCE §10.2), case-insensitive; the service
 *  checks it (with a reason naming the expected form) before calling Hacienda. */
export const EXONERACION_NUMBER_PATTERN = '^[A-Za-z]{2}-[0-9]{8}-[0-9]{2}$';

export const ExoneracionQuery = Type.Object(
  {
    exoneracion: Type.String({
      minLength: 1,
      maxLength: 40,
      description: "Hacienda's authorization number, two letters, 8 digits and 2 digits, e.g. AL-00020402-24",
    }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/exoneracion-query.json', additionalProperties: false },
);
export type ExoneracionQuery = Static<typeof ExoneracionQuery>;

/** `vigente`: today (Costa Rica time) is before fechaVencimiento; `vencida`: it is on or after it. */
export const EXONERACION_ESTADOS = ['vigente', 'vencida'] as const;

export const ExoneracionData = Type.Object(
  {
    numeroDocumento: Type.String(),
    estado: Type.Union(
      EXONERACION_ESTADOS.map((e) => Type.Literal(e)),
      {
        description:
          'vigente when today (America/Costa_Rica) is before fechaVencimiento, else vencida; only a vigente one may be used',
      },
    ),
    porcentajeExoneracion: Type.Number({ description: 'authorized percentage (13 = all the VAT)' }),
    fechaVencimiento: Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
      description: 'expiry, ISO 8601 date-time without offset (Costa Rica time)',
    }),
    fechaEmision: Type.Optional(
      Type.String({ description: 'issue date, ISO 8601 date-time without offset (for FechaEmisionEX)' }),
    ),
    identificacion: Type.Optional(Type.String({ description: 'the beneficiary (the receptor)' })),
    tipoDocumento: Type.Optional(
      Type.Object(
        { codigo: Type.String(), descripcion: Type.Optional(Type.String()) },
        { additionalProperties: false, description: 'TipoDocumentoEX1, e.g. 04' },
      ),
    ),
    nombreInstitucion: Type.Optional(Type.String()),
    cabys: Type.Optional(
      Type.Array(Type.String(), {
        description: 'the CABYS codes the authorization covers, when it lists them',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExoneracionData = Static<typeof ExoneracionData>;

export const ExoneracionResponse = Type.Object(
  { status: Type.Literal('success'), data: ExoneracionData },
  { $id: 'https://schemas.cr-einvoice.dev/exoneracion-response.json', additionalProperties: false },
);
export type ExoneracionResponse = Static<typeof ExoneracionResponse>;

export const ContribuyenteQuery = Type.Object(
  {
    identificacion: Type.Union(
      [
        Type.String({
          pattern: '^[0-9]{9,12}$',
          description: '9 to 12 digits, without hyphens',
        }),
        Type.Integer({ minimum: 100_000_000, maximum: 999_999_999_999 }),
      ],
      { description: 'taxpayer id, 9 to 12 digits without hyphens (a string or a number)' },
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/contribuyente-query.json', additionalProperties: false },
);
export type ContribuyenteQuery = Static<typeof ContribuyenteQuery>;

export const ContribuyenteActividad = Type.Object(
  {
    codigo: Type.String(),
    descripcion: Type.Optional(Type.String()),
    estado: Type.Optional(Type.String({ description: 'A active, I inactive' })),
    tipo: Type.Optional(Type.String({ description: 'P primary, S secondary' })),
  },
  { additionalProperties: false },
);

export const ContribuyenteData = Type.Object(
  {
    nombre: Type.String(),
    tipoIdentificacion: Type.String({ description: '01 física, 02 jurídica, 03 DIMEX, 04 NITE' }),
    regimen: Type.Optional(
      Type.Object({ codigo: Type.String(), descripcion: Type.String() }, { additionalProperties: false }),
    ),
    situacion: Type.Optional(
      Type.Object(
        {
          moroso: Type.Optional(Type.String()),
          omiso: Type.Optional(Type.String()),
          estado: Type.Optional(Type.String()),
          administracionTributaria: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    actividades: Type.Array(ContribuyenteActividad),
  },
  { additionalProperties: false },
);
export type ContribuyenteData = Static<typeof ContribuyenteData>;

export const ContribuyenteResponse = Type.Object(
  { status: Type.Literal('success'), data: ContribuyenteData },
  { $id: 'https://schemas.cr-einvoice.dev/contribuyente-response.json', additionalProperties: false },
);
export type ContribuyenteResponse = Static<typeof ContribuyenteResponse>;

/** Something to look at that did not stop the request (e.g. Hacienda does not list the activity). */
export const Warning = Type.Object(
  {
    path: Type.String({
      description: 'the field concerned, e.g. codigoActividad; (hacienda) for the lookup',
    }),
    reason: Type.String(),
  },
  { additionalProperties: false },
);
export type Warning = Static<typeof Warning>;

/** The answer of POST /api/enviar/emisor and /api/actualizar/emisor. */
export const EmisorWriteResponse = Type.Object(
  {
    status: Type.Literal('success'),
    message: Type.String(),
    warnings: Type.Optional(
      Type.Array(Warning, {
        description:
          "checks against Hacienda's taxpayer registry that failed or could not run; the issuer is stored anyway",
      }),
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/emisor-write-response.json', additionalProperties: false },
);
export type EmisorWriteResponse = Static<typeof EmisorWriteResponse>;
