import { validate } from './ajv';
import {
  WebhookConfigRequest,
  WebhookConsultResponse,
  WebhookEventPayload,
  WebhookReplayRequest,
} from './webhook.schema';

const clave = '5'.repeat(50);

describe('webhook contracts', () => {
  it('when the configuration has a url string, then it is valid; otherwise url is named', () => {
    expect(validate(WebhookConfigRequest, { url: 'https://erp.example/hook' }).ok).toBe(true);
    const wrong = validate(WebhookConfigRequest, { url: 42 });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.issues[0]?.path).toBe('url');
    const missing = validate(WebhookConfigRequest, {});
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.issues).toContainEqual({ path: 'url', reason: 'is required' });
  });

  it('when a replay names a clave that is not 50 digits, then clave is named', () => {
    expect(validate(WebhookReplayRequest, { clave }).ok).toBe(true);
    const r = validate(WebhookReplayRequest, { clave: '123' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.path).toBe('clave');
  });

  it('when the event payload follows the spec, then it is valid; an unknown estado is not', () => {
    const payload = {
      folioId: clave,
      folioType: 'INVOICE',
      folioDetails: [{ fileType: 'XML', encodedFile: Buffer.from('<MensajeHacienda/>').toString('base64') }],
      clave,
      estado: 'aceptado',
    };
    expect(validate(WebhookEventPayload, payload).ok).toBe(true);
    expect(validate(WebhookEventPayload, { ...payload, estado: 'enviado' }).ok).toBe(false);
    expect(validate(WebhookEventPayload, { ...payload, folioType: 'TICKET' }).ok).toBe(false);
  });

  it('when the consultation lists deliveries, then each carries its clave and attempt record', () => {
    const body = {
      status: 'success',
      data: {
        url: 'https://erp.example/hook',
        activo: true,
        entregas: [
          {
            eventId: 'msg_1',
            intento: 1,
            url: 'https://erp.example/hook',
            status: 200,
            latenciaMs: 12,
            error: null,
            fecha: new Date().toISOString(),
            clave,
          },
        ],
      },
    };
    expect(validate(WebhookConsultResponse, body).ok).toBe(true);
  });
});
