// How `cr consultar` writes a document's webhook deliveries.
import { webhookLine } from '../src/commands/documents';

const delivery = {
  eventId: 'msg_2eb415dfeebc6e65d613ad48e7e747bb',
  intento: 1,
  latenciaMs: null,
  fecha: '2026-12-07T04:00:00.000Z',
};

describe('webhookLine', () => {
  it('when the delivery reached an endpoint, then its status and URL are shown', () => {
    expect(webhookLine({ ...delivery, url: 'https://erp.example.com/hook', status: 200, error: null })).toBe(
      '  2026-12-06T22:00:00-06:00 webhook #1 → 200 (https://erp.example.com/hook)',
    );
  });

  it('when no endpoint was configured, then the reason is shown without empty parentheses', () => {
    expect(webhookLine({ ...delivery, url: '', status: null, error: 'no webhook endpoint configured' })).toBe(
      '  2026-12-06T22:00:00-06:00 webhook #1 → no webhook endpoint configured',
    );
  });
});
