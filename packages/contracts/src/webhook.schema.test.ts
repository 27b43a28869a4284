import { validate } from './ajv';
import {
  WebhookConfigRequest,
  WebhookConsultResponse,
  WebhookEventPayload,
  WebhookReplayRequest,
  WebhookReplayResponse,
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

  it("when a replay's answer names where the event goes, then each endpoint state is valid; another state or an unknown field is not", () => {
    const answer = (data: Record<string, unknown>) => ({
      status: 'success',
      message: `event msg_1 queued for document ${clave} (aceptado)`,
      data: { eventId: 'msg_1', ...data },
    });
    expect(validate(WebhookReplayResponse, answer({ webhook: 'activo' })).ok).toBe(true);
    expect(validate(WebhookReplayResponse, answer({ webhook: 'sin-url' })).ok).toBe(true);
    const deactivated = {
      webhook: 'desactivado',
      desactivadoEn: '2025-01-15T14:05:12.000Z',
      motivoDesactivacion: 'receiver answered 410 Gone',
    };
    expect(validate(WebhookReplayResponse, answer(deactivated)).ok).toBe(true);
    const unknown = validate(WebhookReplayResponse, answer({ webhook: 'inactivo' }));
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.issues.map((i) => i.path)).toContain('data.webhook');
    expect(validate(WebhookReplayResponse, answer({})).ok).toBe(false);
    expect(
      validate(WebhookReplayResponse, answer({ webhook: 'activo', url: 'https://erp.example/hook' })).ok,
    ).toBe(false);
  });
});
