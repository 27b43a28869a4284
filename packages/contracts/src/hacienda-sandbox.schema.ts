// Shapes of the Hacienda sandbox: Hacienda's own recepción JSON (REFERENCE §4) as the sandbox accepts and
// answers it, and the sandbox's admin API (/sandbox/…). Field names of Hacienda's resources stay Hacienda's.
import { type Static, Type } from '@sinclair/typebox';

const ID = 'https://schemas.cr-einvoice.dev/sandbox';

export const SandboxParty = Type.Object(
  {
    tipoIdentificacion: Type.String({ minLength: 1, maxLength: 2 }),
    numeroIdentificacion: Type.String({ minLength: 1, maxLength: 20 }),
  },
  { additionalProperties: false },
);
export type SandboxParty = Static<typeof SandboxParty>;

/** POST /recepcion/v1/recepcion (REFERENCE §4.2). */
export const SandboxRecepcionRequest = Type.Object(
  {
    clave: Type.String({ maxLength: 50 }),
    fecha: Type.String({ minLength: 1, maxLength: 40 }),
    emisor: SandboxParty,
    receptor: Type.Optional(SandboxParty),
    callbackUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    consecutivoReceptor: Type.Optional(Type.String({ maxLength: 20 })),
    comprobanteXml: Type.String({ minLength: 1 }),
  },
  { $id: `${ID}/recepcion-request.json`, additionalProperties: false },
);
export type SandboxRecepcionRequest = Static<typeof SandboxRecepcionRequest>;

export const SandboxIndEstado = Type.Union([
  Type.Literal('recibido'),
  Type.Literal('procesando'),
  Type.Literal('aceptado'),
  Type.Literal('rechazado'),
  Type.Literal('error'),
]);
export type SandboxIndEstado = Static<typeof SandboxIndEstado>;

/** GET /recepcion/v1/recepcion/{clave}, also the callback body (REFERENCE §4.3, §4.4). */
export const SandboxRecepcionStatus = Type.Object(
  {
    clave: Type.String(),
    fecha: Type.String(),
    'ind-estado': SandboxIndEstado,
    'respuesta-xml': Type.Optional(Type.String({ description: 'Base64 of the signed MensajeHacienda' })),
    callbackUrl: Type.Optional(Type.String()),
  },
  { $id: `${ID}/recepcion-status.json`, additionalProperties: false },
);
export type SandboxRecepcionStatus = Static<typeof SandboxRecepcionStatus>;

/** A party of GET /recepcion/v1/comprobantes[/{clave}] (REFERENCE §4.5). */
export const ComprobantesParty = Type.Object(
  {
    tipoIdentificacion: Type.String(),
    numeroIdentificacion: Type.String(),
    nombre: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** One entry of GET /recepcion/v1/comprobantes (REFERENCE §4.5), newest first. */
export const ComprobanteResumen = Type.Object(
  {
    clave: Type.String(),
    fecha: Type.String(),
    emisor: ComprobantesParty,
    receptor: Type.Optional(ComprobantesParty),
  },
  { $id: `${ID}/comprobante-resumen.json`, additionalProperties: false },
);
export type ComprobanteResumen = Static<typeof ComprobanteResumen>;

const ClaveFecha = Type.Object(
  { clave: Type.String(), fecha: Type.String() },
  { additionalProperties: false },
);

/**
 * GET /recepcion/v1/comprobantes/{clave} (REFERENCE §4.5). `comprobanteXml` and `ind-estado` are the
 * sandbox's additions (Base64 of the signed document and its status), so a receiver can import it.
 */
export const ComprobanteDetalle = Type.Object(
  {
    clave: Type.String(),
    fecha: Type.String(),
    emisor: ComprobantesParty,
    receptor: Type.Optional(ComprobantesParty),
    notasCredito: Type.Array(ClaveFecha),
    notasDebito: Type.Array(ClaveFecha),
    'ind-estado': Type.Optional(SandboxIndEstado),
    comprobanteXml: Type.Optional(Type.String()),
  },
  { $id: `${ID}/comprobante-detalle.json`, additionalProperties: false },
);
export type ComprobanteDetalle = Static<typeof ComprobanteDetalle>;

/** POST /sandbox/usuarios: an IdP user of one realm. */
export const SandboxUserRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
    realm: Type.Optional(Type.Union([Type.Literal('rut-stag'), Type.Literal('rut')])),
  },
  { $id: `${ID}/user-request.json`, additionalProperties: false },
);
export type SandboxUserRequest = Static<typeof SandboxUserRequest>;

export const SandboxActividad = Type.Object(
  {
    codigo: Type.String({ minLength: 1, maxLength: 10 }),
    descripcion: Type.String({ minLength: 1, maxLength: 300 }),
    estado: Type.Optional(Type.Union([Type.Literal('A'), Type.Literal('I')])),
    tipo: Type.Optional(Type.Union([Type.Literal('P'), Type.Literal('S')])),
  },
  { additionalProperties: false },
);

/** POST /sandbox/contribuyentes: a taxpayer answered by /fe/ae. */
export const SandboxTaxpayerRequest = Type.Object(
  {
    identificacion: Type.String({ pattern: '^[0-9]{9,12}$' }),
    tipoIdentificacion: Type.Union([
      Type.Literal('01'),
      Type.Literal('02'),
      Type.Literal('03'),
      Type.Literal('04'),
    ]),
    nombre: Type.String({ minLength: 1, maxLength: 100 }),
    regimen: Type.Optional(
      Type.Object({ codigo: Type.Integer(), descripcion: Type.String() }, { additionalProperties: false }),
    ),
    moroso: Type.Optional(Type.Boolean()),
    omiso: Type.Optional(Type.Boolean()),
    estado: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    actividades: Type.Array(SandboxActividad, { maxItems: 50 }),
  },
  { $id: `${ID}/taxpayer-request.json`, additionalProperties: false },
);
export type SandboxTaxpayerRequest = Static<typeof SandboxTaxpayerRequest>;

/** POST /sandbox/exoneraciones: an exoneration document answered by /fe/ex. */
export const SandboxExonerationRequest = Type.Object(
  {
    numeroDocumento: Type.String({ pattern: '^[A-Za-z]{2}-[0-9]{8}-[0-9]{2}$' }),
    identificacion: Type.String({ pattern: '^[0-9]{9,12}$' }),
    porcentajeExoneracion: Type.Number({ minimum: 0, maximum: 100 }),
    fechaEmision: Type.Optional(Type.String({ format: 'date' })),
    fechaVencimiento: Type.String({ format: 'date' }),
    codigoProyectoCFIA: Type.Optional(Type.Integer()),
    tipoDocumento: Type.Optional(
      Type.Object({ codigo: Type.String(), descripcion: Type.String() }, { additionalProperties: false }),
    ),
    nombreInstitucion: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    cabys: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9]{13}$' }), { maxItems: 5000 })),
  },
  { $id: `${ID}/exoneration-request.json`, additionalProperties: false },
);
export type SandboxExonerationRequest = Static<typeof SandboxExonerationRequest>;

/** POST /sandbox/veredicto: forces the verdict of the next received document. */
export const SandboxVerdictRequest = Type.Object(
  {
    outcome: Type.Union([
      Type.Literal('accept'),
      Type.Literal('reject'),
      Type.Literal('error'),
      Type.Literal('never'),
    ]),
    code: Type.Optional(Type.Integer({ maximum: 0 })),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  },
  { $id: `${ID}/verdict-request.json`, additionalProperties: false },
);
export type SandboxVerdictRequest = Static<typeof SandboxVerdictRequest>;

export const SandboxFaultTarget = Type.Union([
  Type.Literal('recepcion-post'),
  Type.Literal('recepcion-get'),
  Type.Literal('idp'),
  Type.Literal('public-api'),
]);
export type SandboxFaultTarget = Static<typeof SandboxFaultTarget>;

/** POST /sandbox/fallas: the next `count` calls to `target` fail with `status` or hang for `timeoutMs`. */
export const SandboxFaultRequest = Type.Object(
  {
    target: SandboxFaultTarget,
    mode: Type.Union([Type.Literal('status'), Type.Literal('timeout')]),
    count: Type.Integer({ minimum: 1, maximum: 1000 }),
    status: Type.Optional(Type.Integer({ minimum: 500, maximum: 599 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 600000 })),
  },
  { $id: `${ID}/fault-request.json`, additionalProperties: false },
);
export type SandboxFaultRequest = Static<typeof SandboxFaultRequest>;

/** POST /sandbox/certificados: a test llave criptográfica issued by the sandbox CA (REFERENCE §5.3). */
export const SandboxCertificateRequest = Type.Object(
  {
    identificacion: Type.String({ pattern: '^[0-9]{9,12}$' }),
    tipoIdentificacion: Type.Union([
      Type.Literal('01'),
      Type.Literal('02'),
      Type.Literal('03'),
      Type.Literal('04'),
    ]),
    nombre: Type.String({ minLength: 1, maxLength: 100 }),
    pin: Type.String({ minLength: 4, maxLength: 64 }),
  },
  { $id: `${ID}/certificate-request.json`, additionalProperties: false },
);
export type SandboxCertificateRequest = Static<typeof SandboxCertificateRequest>;

export const SandboxCertificateResponse = Type.Object(
  {
    p12: Type.String({ description: 'Base64 of the PKCS#12 (legacy 3DES encryption, as Hacienda issues)' }),
    subject: Type.String(),
    issuer: Type.String(),
    serialNumber: Type.String(),
    notBefore: Type.String(),
    notAfter: Type.String(),
  },
  { $id: `${ID}/certificate-response.json`, additionalProperties: false },
);
export type SandboxCertificateResponse = Static<typeof SandboxCertificateResponse>;
