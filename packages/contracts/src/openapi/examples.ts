// Request and response examples of the OpenAPI documents, taken from the services' tests (the issuer
// mother, the login and admin tests, the webhook tests). `examples.test.ts` validates every one of them
// against its schema with the contracts' ajv, so an example cannot drift from the contract it shows.
import type {
  ClientView,
  CreateClientRequest,
  SigningKeyList,
  UpdateClientRequest,
} from '../auth-admin.schema';
import type { SuccessMessage } from '../common.schema';
import type { DocumentRequest } from '../document.schema';
import type { EmisorQuery, EmisorQueryResponse, EmisorRegistration } from '../emisor.schema';
import type { LoginRequest, LoginResponse } from '../login.schema';
import type {
  KeyRotationResponse,
  LivenessResponse,
  ReadinessResponse,
  TokenRevokedResponse,
} from '../operations.schema';
import type { JwkSet, RevocationList } from '../revocations.schema';
import type { RevokeTokenRequest } from '../auth-admin.schema';
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
export const updateClientRequestExample: UpdateClientRequest = { disabled: true };
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
export const emisorRegisteredExample: SuccessMessage = {
  status: 'success',
  message: 'issuer 3101123456 registered',
};
export const emisorUpdatedExample: SuccessMessage = {
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
  data: { eventId: 'msg_7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f' },
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

export const EXAMPLE_CLAVE = CLAVE;
export const EXAMPLE_JWT = JWT_SAMPLE;
