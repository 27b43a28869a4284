// Request and response examples of the OpenAPI documents, taken from the services' tests (the issuer
// mother, the login and admin tests, the webhook tests). `examples.test.ts` validates every one of them
// against its schema with the contracts' ajv, so an example cannot drift from the contract it shows.
import type {
  ClientList,
  ClientView,
  CreateClientRequest,
  SigningKeyList,
  UpdateClientRequest,
} from '../auth-admin.schema';
import type { SuccessMessage } from '../common.schema';
import type {
  CorreoConfigRequest,
  CorreoConfigResponse,
  CorreoResendRequest,
  CorreoResendResponse,
  MarcaConfigRequest,
  MarcaConfigResponse,
} from '../delivery.schema';
import type { DocumentRequest } from '../document.schema';
import type { EmisorQuery, EmisorQueryResponse, EmisorRegistration } from '../emisor.schema';
import type {
  CabysQuery,
  CabysResponse,
  ContribuyenteQuery,
  ContribuyenteResponse,
  EmisorWriteResponse,
  ExoneracionQuery,
  ExoneracionResponse,
} from '../lookups.schema';
import type { LoginRequest, LoginResponse } from '../login.schema';
import type {
  KeyRotationResponse,
  LivenessResponse,
  ReadinessResponse,
  TokenRevokedResponse,
} from '../operations.schema';
import type { JwkSet, RevocationList } from '../revocations.schema';
import type { DocumentQuery, DocumentQueryResponse, EnviarItemsResponse } from '../submission.schema';
import type { DocumentListResponse, EmisorListResponse } from '../listings.schema';
import type { RevokeTokenRequest } from '../auth-admin.schema';
import type { ApiKeyView, CreateApiKeyRequest, CreatedApiKey } from '../api-keys.schema';
import type {
  WebhookConfigRequest,
  WebhookConfigResponse,
  WebhookConsultResponse,
  WebhookReplayRequest,
  WebhookReplayResponse,
} from '../webhook.schema';

const CLAVE = '50601012500310112345600100001010000000001100000001';
const JWT_SAMPLE =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6IjNxV2Q4Yk1XWnRKQ3F0aVlyRkNmM1BIbW5FVjJ4dkxRc0VWUlNhNGpUUFUiLCJ0eXAiOiJKV1QifQ.eyJiYXNlIjoiYWNtZSJ9.c2lnbmF0dXJl';
const KID = '3qWd8bMWZtJCqtiYrFCf3PHmnEV2xvLQsEVRSa4jTPU';

export const loginRequestExample: LoginRequest = { base: 'acme', password: 'correct horse battery staple' };
export const loginResponseExample: LoginResponse = {
  token: JWT_SAMPLE,
  expires_in: 28800,
  token_type: 'Bearer',
};
export const logoutResponseExample: SuccessMessage = { status: 'success', message: 'token revoked' };

export const jwkSetExample: JwkSet = {
  keys: [
    {
      kty: 'RSA',
      n: 'sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1Wl',
      e: 'AQAB',
      kid: KID,
      alg: 'RS256',
      use: 'sig',
    },
  ],
};
export const revocationListExample: RevocationList = {
  revoked: [{ jti: '5b0c1f7e-2f4e-4a43-9a57-9d8a3c1e2b10', exp: 1767225600 }],
  revokedSubjects: [{ sub: 'globex', notBefore: 1767199000 }],
  asOf: 1767200000,
};

export const createClientRequestExample: CreateClientRequest = {
  base: 'acme',
  password: 'correct horse battery staple',
};
export const clientViewExample: ClientView = {
  base: 'acme',
  disabled: false,
  createdAt: '2025-01-15T14:03:07.000Z',
};
export const clientListExample: ClientList = {
  clients: [clientViewExample, { base: 'globex', disabled: true, createdAt: '2025-02-03T09:12:44.000Z' }],
  next: 'globex',
};
export const updateClientRequestExample: UpdateClientRequest = { disabled: true };
export const createApiKeyRequestExample: CreateApiKeyRequest = {
  name: 'ERP invoicing',
  scopes: ['documents:write', 'documents:read'],
};
export const apiKeyViewExample: ApiKeyView = {
  id: 'Hk3v9QwLx2Tb7mPa',
  base: 'acme',
  name: 'ERP invoicing',
  scopes: ['documents:write', 'documents:read'],
  createdAt: '2025-01-15T14:03:07.000Z',
  revokedAt: null,
  lastUsedAt: null,
};
export const createdApiKeyExample: CreatedApiKey = {
  ...apiKeyViewExample,
  key: 'crk_Hk3v9QwLx2Tb7mPa_q8Zr2YtW0fJd5nVb3kLx7sPe1uGh4mQa9cRt6yBwE2o',
};
export const signingKeyListExample: SigningKeyList = {
  keys: [
    {
      kid: KID,
      status: 'current',
      createdAt: '2025-01-15T14:00:00.000Z',
      activatesAt: null,
      publicKeyPem:
        '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAsXchDaQebHnPiGvyDOAT4saGEUetSyo9\n-----END PUBLIC KEY-----\n',
    },
  ],
};
export const keyRotationResponseExample: KeyRotationResponse = {
  activated: KID,
  activatesAt: '2025-01-15T15:00:00.000Z',
  next: 'Vd2pQq0b3mWJbYl2n8m1T7gS4oH9xRk6cZfE5uA0iLw',
};
export const revokeTokenRequestExample: RevokeTokenRequest = {
  jti: '5b0c1f7e-2f4e-4a43-9a57-9d8a3c1e2b10',
  exp: 1767225600,
};
export const tokenRevokedResponseExample: TokenRevokedResponse = {
  jti: '5b0c1f7e-2f4e-4a43-9a57-9d8a3c1e2b10',
  exp: 1767225600,
};

export const livenessExample: LivenessResponse = { status: 'ok' };
export const readinessExample: ReadinessResponse = { status: 'ok', checks: { database: 'ok' } };

/** The issuer mother's body (apps/tenant-api/test/support/issuer-mother.ts), with a shortened .p12. */
export const emisorRegistrationExample: EmisorRegistration = {
  identificacion: 3101123456,
  tipoIdentificacion: 2,
  codigoActividad: 6201.0,
  sucursal: 1,
  nombreComercial: 'Acme Soluciones',
  telefono: '22223333',
  correoElectronico: 'facturas@acme.cr',
  ubicacion: {
    provincia: '1',
    canton: '01',
    distrito: '01',
    barrio: '02',
    direccion: 'Avenida 1, calle 2, edificio azul',
  },
  ambiente: 2,
  usuarioHacienda: 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr',
  claveHacienda: 'UzNjcjN0LUhhY2llbmRhIQ==',
  pinCertificado: '4821',
  certificadoHacienda: 'MIIKcQIBAzCCCjcGCSqGSIb3DQEHAaCCCigEggokMIIKIDCCBNcGCSqGSIb3DQEHBqCCBMgwggTE',
};
export const emisorRegisteredExample: EmisorWriteResponse = {
  status: 'success',
  message: 'issuer 3101123456 registered',
};
/** Hacienda's taxpayer registry disagrees (apps/tenant-api/test/lookups.hacienda.test.ts): stored anyway. */
export const emisorRegisteredWithWarningsExample: EmisorWriteResponse = {
  status: 'success',
  message: 'issuer 3101123456 registered',
  warnings: [
    {
      path: 'codigoActividad',
      reason:
        "6201.0 is not an active activity of this taxpayer in Hacienda's registry (active: 620100 ACTIVIDADES DE PROGRAMACION INFORMATICA); Hacienda rejects documents with it",
    },
    {
      path: 'nombre',
      reason:
        'Hacienda registers this taxpayer as "ACME SOLUCIONES SOCIEDAD ANONIMA"; documents carry "Acme Soluciones"',
    },
  ],
};
/** Hacienda's public API was down: the registration is stored unchecked. */
export const emisorUnreachableRegistryExample: EmisorWriteResponse = {
  status: 'success',
  message: 'issuer 3101123456 updated',
  warnings: [
    {
      path: '(hacienda)',
      reason:
        "Hacienda's taxpayer registry could not be reached; identificacion, nombre and codigoActividad were not checked against it",
    },
  ],
};
export const emisorUpdatedExample: EmisorWriteResponse = {
  status: 'success',
  message: 'issuer 3101123456 updated',
};
export const emisorQueryExample: EmisorQuery = { identificacion: 3101123456 };
export const emisorQueryResponseExample: EmisorQueryResponse = {
  status: 'success',
  data: {
    identificacion: 3101123456,
    tipoIdentificacion: 2,
    nombreComercial: 'Acme Soluciones',
    correoElectronico: 'facturas@acme.cr',
    telefono: '22223333',
    ambiente: 2,
    certificado: {
      sujeto: 'serialNumber=CPJ-3-101-123456, CN=ACME SOLUCIONES SOCIEDAD ANONIMA, C=CR',
      vence: '2027-01-15T14:00:00.000Z',
    },
  },
};

export const webhookConfigRequestExample: WebhookConfigRequest = {
  url: 'https://erp.acme.cr/hooks/facturas',
};
export const webhookConfigResponseExample: WebhookConfigResponse = {
  status: 'success',
  data: { url: 'https://erp.acme.cr/hooks/facturas', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
};
export const webhookConsultResponseExample: WebhookConsultResponse = {
  status: 'success',
  data: {
    url: 'https://erp.acme.cr/hooks/facturas',
    activo: true,
    entregas: [
      {
        eventId: 'msg_2f0c6d0b9a1e4c7f8b3d5e6f7a8b9c0d',
        intento: 1,
        url: 'https://erp.acme.cr/hooks/facturas',
        status: 200,
        latenciaMs: 84,
        error: null,
        fecha: '2025-01-15T14:05:12.000Z',
        clave: CLAVE,
      },
    ],
  },
};
export const webhookReplayRequestExample: WebhookReplayRequest = { clave: CLAVE };
export const webhookReplayResponseExample: WebhookReplayResponse = {
  status: 'success',
  message: `event msg_7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f queued for document ${CLAVE} (aceptado)`,
  data: { eventId: 'msg_7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f', webhook: 'activo' },
};
/** The same replay for a tenant that never configured a URL (the messages of apps/tenant-api's replay tests). */
export const webhookReplayNoUrlExample: WebhookReplayResponse = {
  status: 'success',
  message: `event msg_7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f queued for document ${CLAVE} (aceptado); no webhook URL is configured, so it will be recorded as not delivered: set one with POST /api/configurar/webhook`,
  data: { eventId: 'msg_7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f', webhook: 'sin-url' },
};
/** The same replay after the receiver answered 410 Gone. */
export const webhookReplayDeactivatedExample: WebhookReplayResponse = {
  status: 'success',
  message: `event msg_7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f queued for document ${CLAVE} (aceptado); the webhook endpoint was deactivated on 2025-01-15T14:05:12.000Z (receiver answered 410 Gone), so it will be recorded as not delivered: saving the URL again (POST /api/configurar/webhook) reactivates it`,
  data: {
    eventId: 'msg_7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f',
    webhook: 'desactivado',
    desactivadoEn: '2025-01-15T14:05:12.000Z',
    motivoDesactivacion: 'receiver answered 410 Gone',
  },
};

/** The spec's invoice (packages/contracts/src/document.schema.test.ts), for the issuer above. */
export const documentRequestExample: DocumentRequest = {
  emisor: '3101123456',
  numeroReferencia: 33,
  codigoActividad: '6201.0',
  tipoDoc: '1',
  folioType: 'INVOICE',
  fechaEmision: '2026-05-26T12:30:59-06:00',
  receptor: { nombre: 'Pixdea SA', identificacion: { tipo: '02', numero: '3101779527' } },
  detalleServicio: [
    {
      numeroLinea: 1,
      codigo: '8314300000000',
      detalle: 'Servicios de desarrollo',
      cantidad: 1,
      unidadMedida: 'Sp',
      precioUnitario: '1250.00',
      subTotal: '1250.00',
      montoTotal: '1250.00',
      impuestoNeto: 162.5,
      montoTotalLinea: 1412.5,
      impuesto: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '162.50' }],
    },
  ],
  resumenFactura: {
    codigoTipoMoneda: { codigoMoneda: 'USD', tipoCambio: '455.14' },
    mediosPago: [{ tipoMedioPago: '01' }],
  },
};

const REFERENCED_FE = {
  tipoDocumento: '01' as const,
  numero: '50626052600310112345600100001010000000033159073080',
  fechaEmision: '2026-05-26T12:30:59-06:00',
};

/** A debit note (tipoDoc 2): late-payment interest on an invoice, with a 2026-04 reference code. */
export const debitNoteRequestExample: DocumentRequest = {
  emisor: '3101123456',
  numeroReferencia: 7,
  codigoActividad: '6201.0',
  tipoDoc: '2',
  folioType: 'DEBIT_NOTE',
  fechaEmision: '2026-06-02T09:00:00-06:00',
  receptor: { nombre: 'Pixdea SA', identificacion: { tipo: '02', numero: '3101779527' } },
  detalleServicio: [
    {
      numeroLinea: 1,
      codigo: '8314300000000',
      detalle: 'Intereses moratorios de la factura 33',
      cantidad: 1,
      unidadMedida: 'Os',
      precioUnitario: '100.00',
      subTotal: '100.00',
      montoTotal: '100.00',
      impuestoNeto: 13,
      montoTotalLinea: 113,
      impuesto: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '13.00' }],
    },
  ],
  resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '04' }] },
  informacionReferencia: [{ ...REFERENCED_FE, codigo: '10', razon: 'Intereses por pago tardio' }],
};

/** A purchase invoice (tipoDoc 8): coffee bought from a farmer who does not invoice. */
export const purchaseInvoiceRequestExample: DocumentRequest = {
  emisor: '3101123456',
  numeroReferencia: 1,
  codigoActividad: '6201.0',
  tipoDoc: '8',
  folioType: 'INVOICE',
  fechaEmision: '2026-06-02T09:00:00-06:00',
  proveedor: {
    nombre: 'Juan Perez Mora',
    identificacion: { tipo: '01', numero: '112340567' },
    ubicacion: { provincia: '2', canton: '01', distrito: '01', otrasSenas: 'Frente a la plaza de deportes' },
    correoElectronico: 'juan.perez@example.com',
  },
  detalleServicio: [
    {
      numeroLinea: 1,
      codigo: '0111100000100',
      detalle: 'Cafe en fruta',
      cantidad: 50,
      unidadMedida: 'Kg',
      precioUnitario: '2000.00',
      subTotal: '100000.00',
      montoTotal: '100000.00',
      impuestoNeto: 1000,
      montoTotalLinea: 101000,
      impuesto: [{ codigo: '01', codigoTarifa: '02', tarifa: '1', monto: '1000.00' }],
    },
  ],
  resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '04' }] },
  informacionReferencia: {
    tipoDocumento: '14',
    numero: 'REG-ESP-2026-001',
    fechaEmision: '2026-06-02T08:00:00-06:00',
    codigo: '04',
    razon: 'Compra a contribuyente de regimen especial agropecuario',
  },
};

/** An export invoice (tipoDoc 9): goods with their tariff heading, no IVA, in USD. */
export const exportInvoiceRequestExample: DocumentRequest = {
  emisor: '3101123456',
  numeroReferencia: 1,
  codigoActividad: '6201.0',
  tipoDoc: '9',
  folioType: 'INVOICE',
  fechaEmision: '2026-06-02T09:00:00-06:00',
  receptor: {
    nombre: 'Acme Imports LLC',
    identificacion: { tipo: '05', numero: 'US123456789' },
    otrasSenasExtranjero: '100 Main Street, Miami FL 33101, USA',
  },
  detalleServicio: [
    {
      numeroLinea: 1,
      partidaArancelaria: '090111000000',
      codigo: '0111100000100',
      detalle: 'Cafe verde sin tostar',
      cantidad: 10,
      unidadMedida: 'Kg',
      precioUnitario: '250.00',
      subTotal: '2500.00',
      montoTotal: '2500.00',
      impuestoNeto: 0,
      montoTotalLinea: 2500,
      impuesto: [{ codigo: '01', codigoTarifa: '01', tarifa: '0', monto: '0.00' }],
    },
  ],
  resumenFactura: {
    codigoTipoMoneda: { codigoMoneda: 'USD', tipoCambio: '507.12' },
    mediosPago: [{ tipoMedioPago: '04' }],
  },
};

/** A payment receipt (tipoDoc 10): part payment of an invoice sold on credit under art. 27 LIVA. */
export const paymentReceiptRequestExample: DocumentRequest = {
  emisor: '3101123456',
  numeroReferencia: 1,
  codigoActividad: '6201.0',
  tipoDoc: '10',
  folioType: 'PAYMENT_RECEIPT',
  fechaEmision: '2026-06-02T09:00:00-06:00',
  condicionVenta: '11',
  receptor: { nombre: 'Pixdea SA', identificacion: { tipo: '02', numero: '3101779527' } },
  detalleServicio: [
    {
      numeroLinea: 1,
      detalle: 'Pago parcial de la factura 33',
      cantidad: 1,
      precioUnitario: '500.00',
      subTotal: '500.00',
      montoTotal: '500.00',
      impuestoNeto: 65,
      montoTotalLinea: 565,
      impuesto: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '65.00' }],
    },
  ],
  resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '04' }] },
  informacionReferencia: { ...REFERENCED_FE, codigo: '17', razon: 'Pago a la factura vendida a credito' },
};

/** An invoice line with several taxes (selectivo 02, alcohol 04, IVA 13% on SubTotal + both) and two
 *  discounts, one a regalía whose IVA the issuer absorbs (docs/taxes.md, ADR 0009). */
export const multiTaxRequestExample: DocumentRequest = {
  ...documentRequestExample,
  numeroReferencia: 34,
  receptor: { nombre: 'Pixdea SA', identificacion: { tipo: '02', numero: '3101779527' } },
  detalleServicio: [
    {
      numeroLinea: 1,
      codigo: '2132100000100',
      detalle: 'Vino tinto 750 ml, caja de 12',
      cantidad: 12,
      unidadMedida: 'Unid',
      precioUnitario: '1500.00',
      subTotal: '18000.00',
      descuentos: [
        { montoDescuento: '1500.00', codigoDescuento: '01', naturalezaDescuento: 'Una botella de regalía' },
        { montoDescuento: '300.00', codigoDescuento: '05' },
      ],
      montoTotal: '16200.00',
      baseImponible: '18408.375',
      impuestoAsumidoEmisorFabrica: '195.00',
      impuesto: [
        { codigo: '02', tarifa: '10', monto: '1620.00' },
        {
          codigo: '04',
          datosImpuestoEspecifico: {
            cantidadUnidadMedida: '0.75',
            porcentaje: '12.5',
            proporcion: '9.375',
            impuestoUnidad: '5.23',
          },
          monto: '588.375',
        },
        { codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '2588.08875' },
      ],
      impuestoNeto: 4601.46375,
      montoTotalLinea: 20801.46375,
    },
  ],
  resumenFactura: {
    codigoTipoMoneda: { codigoMoneda: 'CRC' },
    mediosPago: [{ tipoMedioPago: '04' }],
    totalImpuesto: '4601.46375',
    totalComprobante: '20801.46375',
  },
};

/** An invoice with a surtido line (ADR 0024): two gift baskets of three products with different CABYS
 *  codes, each component with its own taxes; the line's amounts are the components' times 2. */
export const surtidoRequestExample: DocumentRequest = {
  ...documentRequestExample,
  numeroReferencia: 35,
  receptor: { nombre: 'Pixdea SA', identificacion: { tipo: '02', numero: '3101779527' } },
  detalleServicio: [
    {
      numeroLinea: 1,
      codigo: '2399999002200',
      codigoComercial: [{ tipo: '03', codigo: '7441001234567' }],
      detalle: 'Canasta navideña',
      cantidad: 2,
      unidadMedida: 'Unid',
      detalleSurtido: [
        {
          codigo: '2149400000400',
          detalle: 'Mermelada de fresa 250 g',
          cantidad: 2,
          unidadMedida: 'Unid',
          precioUnitario: '1500.00',
          montoTotal: '3000.00',
          descuentos: [{ montoDescuento: '300.00', codigoDescuento: '07' }],
          subTotal: '2700.00',
          impuestos: [{ codigo: '01', codigoTarifa: '02', tarifa: '1', monto: '27.00' }],
        },
        {
          codigo: '2225102010100',
          detalle: 'Queso gouda',
          cantidad: 1,
          unidadMedida: 'Kg',
          precioUnitario: '6000.00',
          impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '780.00' }],
        },
        {
          codigo: '2132100000100',
          detalle: 'Jugo de tomate 330 ml',
          cantidad: 3,
          unidadMedida: 'Unid',
          precioUnitario: '800.00',
          baseImponible: '2640.00',
          impuestos: [
            { codigo: '02', tarifa: '10', monto: '240.00' },
            { codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '343.20' },
          ],
        },
      ],
      precioUnitario: '11100.00',
      subTotal: '22200.00',
      montoTotal: '22200.00',
      baseImponible: '22680.00',
      impuestoNeto: 2780.4,
      montoTotalLinea: 24980.4,
    },
  ],
  resumenFactura: {
    codigoTipoMoneda: { codigoMoneda: 'CRC' },
    mediosPago: [{ tipoMedioPago: '04' }],
    totalImpuesto: '2780.40',
    totalComprobante: '24980.40',
  },
};

export const enviarItemsResponseExample: EnviarItemsResponse = {
  status: 'success',
  message: `document ${CLAVE} received; Hacienda's answer will follow`,
  clave: CLAVE,
};
export const documentQueryExample: DocumentQuery = { clave: CLAVE };
/** An accepted invoice whose final-state event was delivered on the first attempt. */
export const documentQueryResponseExample: DocumentQueryResponse = {
  status: 'success',
  data: {
    clave: CLAVE,
    tipoDoc: '1',
    emisor: '3101123456',
    numeroReferencia: 1,
    consecutivo: '00100001010000000001',
    fechaEmision: '2025-01-01T08:15:00-06:00',
    estado: 'aceptado',
    mensajeHacienda: { mensaje: 1, detalle: [] },
    intentos: 1,
    historial: [
      { estado: 'pendiente', fecha: '2025-01-01T14:15:00.000Z', detalle: null },
      { estado: 'enviado', fecha: '2025-01-01T14:15:01.000Z', detalle: null },
      { estado: 'aceptado', fecha: '2025-01-01T14:20:11.000Z', detalle: null },
    ],
    webhook: {
      entregas: [
        {
          eventId: 'msg_2f0c6d0b9a1e4c7f8b3d5e6f7a8b9c0d',
          intento: 1,
          url: 'https://erp.acme.cr/hooks/facturas',
          status: 200,
          latenciaMs: 84,
          error: null,
          fecha: '2025-01-01T14:20:12.000Z',
        },
      ],
      total: 1,
    },
    correo: {
      envios: [
        {
          envioId: 'env_6b1f0e3c9d2a4b8e',
          motivo: 'aceptado',
          destinatarios: ['cuentas@pixdea.cr'],
          estado: 'enviado',
          intentos: [
            {
              intento: 1,
              ok: false,
              codigo: 421,
              respuesta: '421 4.3.2 Service not available, try again later',
              fecha: '2025-01-01T14:20:12.000Z',
            },
            {
              intento: 2,
              ok: true,
              codigo: 250,
              respuesta: '250 2.0.0 OK queued',
              fecha: '2025-01-01T14:21:12.000Z',
            },
          ],
          fecha: '2025-01-01T14:20:12.000Z',
        },
      ],
      total: 1,
    },
  },
};
/** A rejected one: Hacienda's detail lines, and a delivery that failed once. */
export const documentRejectedResponseExample: DocumentQueryResponse = {
  status: 'success',
  data: {
    ...documentQueryResponseExample.data,
    estado: 'rechazado',
    historial: [
      { estado: 'pendiente', fecha: '2025-01-01T14:15:00.000Z', detalle: null },
      { estado: 'enviado', fecha: '2025-01-01T14:15:01.000Z', detalle: null },
      { estado: 'rechazado', fecha: '2025-01-01T14:20:11.000Z', detalle: null },
    ],
    mensajeHacienda: {
      mensaje: 3,
      detalle: [
        {
          codigo: -37,
          mensaje: 'El receptor indicado no se encuentra inscrito en el Registro Único Tributario',
          fila: 0,
          columna: 0,
        },
      ],
    },
    webhook: {
      entregas: [
        {
          eventId: 'msg_9a8b7c6d5e4f30211a2b3c4d5e6f7a8b',
          intento: 1,
          url: 'https://erp.acme.cr/hooks/facturas',
          status: 503,
          latenciaMs: 120,
          error: 'receiver answered 503',
          fecha: '2025-01-01T14:20:12.000Z',
        },
      ],
      total: 1,
    },
  },
};
/** The start of a signed comprobante, as GET /api/descargar/{clave}/xml answers it (abridged). */
export const comprobanteXmlExample = `<?xml version="1.0" encoding="UTF-8"?>
<FacturaElectronica xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica">
  <Clave>${CLAVE}</Clave>
  <ProveedorSistemas>3101123456</ProveedorSistemas>
  <CodigoActividadEmisor>6201.0</CodigoActividadEmisor>
  <NumeroConsecutivo>00100001010000000001</NumeroConsecutivo>
  <FechaEmision>2025-01-01T08:15:00-06:00</FechaEmision>
  <!-- … Emisor, Receptor, DetalleServicio, ResumenFactura, ds:Signature … -->
</FacturaElectronica>`;
/** Hacienda's MensajeHacienda for it (abridged), as GET /api/descargar/{clave}/respuesta answers it. */
export const respuestaXmlExample = `<?xml version="1.0" encoding="utf-8"?>
<MensajeHacienda xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeHacienda">
  <Clave>${CLAVE}</Clave>
  <NombreEmisor>Acme Soluciones</NombreEmisor>
  <TipoIdentificacionEmisor>02</TipoIdentificacionEmisor>
  <NumeroCedulaEmisor>3101123456</NumeroCedulaEmisor>
  <Mensaje>1</Mensaje>
  <DetalleMensaje>Este comprobante fue aceptado en el ambiente de pruebas</DetalleMensaje>
  <!-- … MontoTotalImpuesto, TotalFactura, ds:Signature … -->
</MensajeHacienda>`;
export const callbackResponseExample: SuccessMessage = {
  status: 'success',
  message: 'status check scheduled',
};

export const cabysQueryExample: CabysQuery = { name: 'desarrollo de software', limite: 5 };
export const cabysResponseExample: CabysResponse = {
  status: 'success',
  data: [
    {
      codigo: '8314300000000',
      descripcion: 'Servicios de diseño y desarrollo de tecnología de la información (TI) para aplicaciones',
      impuesto: 13,
    },
  ],
};
export const exoneracionQueryExample: ExoneracionQuery = { exoneracion: 'AL-00020402-24' };
export const exoneracionResponseExample: ExoneracionResponse = {
  status: 'success',
  data: {
    numeroDocumento: 'AL-00020402-24',
    estado: 'vigente',
    porcentajeExoneracion: 13,
    fechaVencimiento: '2030-12-31T00:00:00',
    fechaEmision: '2024-03-01T00:00:00',
    identificacion: '3101779527',
    tipoDocumento: { codigo: '04', descripcion: 'Exenciones Dirección General de Hacienda' },
    nombreInstitucion: 'Ministerio de Hacienda',
    cabys: ['8314300000000'],
  },
};
export const contribuyenteQueryExample: ContribuyenteQuery = { identificacion: '3101123456' };
export const contribuyenteResponseExample: ContribuyenteResponse = {
  status: 'success',
  data: {
    nombre: 'ACME SOLUCIONES SOCIEDAD ANONIMA',
    tipoIdentificacion: '02',
    regimen: { codigo: '1', descripcion: 'Régimen General' },
    situacion: { moroso: 'NO', omiso: 'NO', estado: 'Inscrito', administracionTributaria: 'San José Este' },
    actividades: [
      { codigo: '620100', descripcion: 'ACTIVIDADES DE PROGRAMACION INFORMATICA', estado: 'A', tipo: 'P' },
    ],
  },
};

export const EXAMPLE_CLAVE = CLAVE;
export const EXAMPLE_JWT = JWT_SAMPLE;

/** A 1×1 PNG, base64: the smallest logo the API accepts. */
const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const marcaConfigRequestExample: MarcaConfigRequest = {
  logo: TINY_PNG,
  pieDePagina: 'Gracias por su compra. Cuenta IBAN CR05015202001026284066',
};
export const marcaConfigResponseExample: MarcaConfigResponse = {
  status: 'success',
  data: {
    logo: { tipo: 'image/png', bytes: 70 },
    pieDePagina: 'Gracias por su compra. Cuenta IBAN CR05015202001026284066',
  },
};
/** One page of GET /api/documentos. */
export const documentListExample: DocumentListResponse = {
  status: 'success',
  data: [
    {
      clave: CLAVE,
      tipoDoc: '1',
      emisor: '3101123456',
      consecutivo: '00100001010000000001',
      numeroReferencia: 1,
      fechaEmision: '2025-01-01T08:15:00-06:00',
      estado: 'aceptado',
      receptor: { tipo: '02', numero: '3101779527' },
      total: '11300.00000',
      moneda: 'CRC',
    },
  ],
  cursor: 'eyJmIjoiMjAyNS0wMS0wMVQxNDoxNTowMC4wMDBaIiwiaSI6IjRmM2MifQ',
};
/** GET /api/emisores: one issuer whose certificate expires in 20 days. */
export const emisorListExample: EmisorListResponse = {
  status: 'success',
  data: [{ ...emisorQueryResponseExample.data, diasParaVencer: 20, porVencer: true }],
};

export const correoConfigRequestExample: CorreoConfigRequest = {
  host: 'smtp.acme.cr',
  port: 587,
  secure: false,
  usuario: 'facturas@acme.cr',
  password: 'app-password-del-buzon',
  remitente: 'facturas@acme.cr',
  nombreRemitente: 'ACME Facturación',
};
export const correoConfigResponseExample: CorreoConfigResponse = {
  status: 'success',
  data: {
    origen: 'tenant',
    host: 'smtp.acme.cr',
    port: 587,
    secure: false,
    requiereTls: true,
    usuario: 'facturas@acme.cr',
    tienePassword: true,
    remitente: 'facturas@acme.cr',
  },
};
export const correoResendRequestExample: CorreoResendRequest = {
  clave: CLAVE,
  destinatarios: ['contabilidad@pixdea.cr'],
};
export const correoResendResponseExample: CorreoResendResponse = {
  status: 'success',
  message: `the e-mail of ${CLAVE} is queued`,
  data: { envioId: 'env_0c4d2e9a7b3f1e6d' },
};
