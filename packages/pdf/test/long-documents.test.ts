// A long document is laid out in turns of the event loop (pdf-kit.ts, turnAt): a tenant's 1,000-line invoice
// must not hold every other request and job while its PDF is drawn. The bytes do not change.
import { readComprobanteView, renderComprobantePdf } from '../src';
import { fiveLineInvoice, line, sign } from './fixtures';

const view = readComprobanteView(
  sign(
    fiveLineInvoice({
      detalleServicio: Array.from({ length: 400 }, (_, i) => {
        const l = line(i + 1, { precio: '1000.00' });
        l.detalle = `Servicio profesional de consultoría número ${i + 1}`;
        return l;
      }),
    }),
  ),
);

/** How many times other work got the event loop while `work` ran: a chain of setImmediate callbacks. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; result: T }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  running = false;
  return { turns, result };
}

describe('a 400-line document', () => {
  it.each(['carta', 'tiquete'] as const)(
    'in the %s layout gives other work the event loop while it is drawn, with the same bytes',
    async (layout) => {
      const { turns, result } = await turnsDuring(() => renderComprobantePdf(view, { layout }));
      // 400 lines are 19 turns of the letter (one before every 20th line; the ticket has more items). Drawn
      // in one go, other work got none.
      expect(turns).toBeGreaterThanOrEqual(19);
      expect((await renderComprobantePdf(view, { layout })).equals(result)).toBe(true);
    },
  );
});
