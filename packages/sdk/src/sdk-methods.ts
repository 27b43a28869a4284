// Which SDK method calls which documented operation, and which operations have no method on purpose. The
// coverage test reads both: a route added to an OpenAPI document without a method here (or a reason in
// EXCLUDED_OPERATIONS) fails it. Add the method to its resource, then its line here.
import type { OperationKey } from './generated/operations-map';

export const SDK_METHODS = {
  'auth.login': 'auth.login',
  'auth.logout': 'auth.logout',
  'emisores.register': 'tenant.registerIssuer',
  'emisores.update': 'tenant.updateIssuer',
  'emisores.get': 'tenant.getIssuer',
  'emisores.listar': 'tenant.listIssuers',
  'documentos.enviar': 'tenant.submitDocument',
  'documentos.consultar': 'tenant.getDocument',
  'documentos.listar': 'tenant.listDocuments',
  'documentos.descargarXml': 'tenant.downloadDocumentXml',
  'documentos.descargarRespuesta': 'tenant.downloadHaciendaResponse',
  'documentos.descargarPdf': 'tenant.downloadDocumentPdf',
  'entrega.configurarMarca': 'tenant.configureBranding',
  'entrega.configurarCorreo': 'tenant.configureMail',
  'entrega.consultarCorreo': 'tenant.getMail',
  'entrega.reenviarCorreo': 'tenant.resendMail',
  'hacienda.cabys': 'tenant.searchCabys',
  'hacienda.exoneracion': 'tenant.getExoneracion',
  'hacienda.contribuyente': 'tenant.getContribuyente',
  'webhooks.configure': 'tenant.configureWebhook',
  'webhooks.get': 'tenant.getWebhook',
  'webhooks.replay': 'tenant.replayWebhook',
  'recepcion.recibir': 'tenant.receiveDocument',
  'recepcion.listar': 'tenant.listReceivedDocuments',
  'recepcion.consultar': 'tenant.getReceivedDocument',
  'recepcion.descargarXml': 'tenant.downloadReceivedXml',
  'recepcion.descargarRespuestaHacienda': 'tenant.downloadReceivedHaciendaAnswer',
  'recepcion.responder': 'tenant.answerReceivedDocument',
  'recepcion.sincronizar': 'tenant.synchronizeReceivedDocuments',
} as const satisfies Record<string, OperationKey>;

export type SdkMethodPath = keyof typeof SDK_METHODS;

const PROBE = 'a probe for orchestrators and load balancers, not a client operation';
const VERIFIER = 'read by the tenant-api to verify tokens; clients never need it';
const DASHBOARD =
  "the web dashboard's browser session (an httpOnly cookie and a CSRF header); API clients use Bearer tokens";
const OPERATOR =
  'the operator API (AUTH_ADMIN_TOKEN), wrapped by `pnpm admin`; a client credential cannot call it';

/** Documented operations deliberately left out of the SDK, each with its reason. */
export const EXCLUDED_OPERATIONS: Readonly<Record<string, string>> = {
  'auth.healthLive': PROBE,
  'auth.healthReady': PROBE,
  'auth.health': PROBE,
  'tenant.healthLive': PROBE,
  'tenant.healthReady': PROBE,
  'tenant.health': PROBE,
  'auth.healthDetails':
    'readiness reasons for operators and monitoring (HEALTH_TOKEN), not a client operation',
  'tenant.healthDetails':
    'readiness reasons for operators and monitoring (HEALTH_TOKEN), not a client operation',
  'auth.getJwks': VERIFIER,
  'auth.listRevocations': VERIFIER,
  'auth.listClients': OPERATOR,
  'auth.createClient': OPERATOR,
  'auth.updateClient': OPERATOR,
  'auth.deleteClient': OPERATOR,
  'auth.listSigningKeys': OPERATOR,
  'auth.rotateSigningKeys': OPERATOR,
  'auth.retireSigningKey': OPERATOR,
  'auth.revokeToken': OPERATOR,
  'auth.createApiKey': OPERATOR,
  'auth.listApiKeys': OPERATOR,
  'auth.revokeApiKey': OPERATOR,
  'tenant.signIn': DASHBOARD,
  'tenant.getSession': DASHBOARD,
  'tenant.signOut': DASHBOARD,
  'tenant.haciendaCallback':
    "called by Hacienda with a per-document token; it is Hacienda's, not the client's",
};
