import { readComprobanteView } from '@cr/pdf';
import { signedInvoiceXml } from '../../test/support/documents';
import { comprobanteView } from './comprobante-views';

describe('comprobanteView', () => {
  it('when the same XML is read again, then the view read the first time is returned, equal to a fresh reading', () => {
    const xml = signedInvoiceXml();
    const first = comprobanteView(xml);
    // Another string with the same text, as a second job's database read gives.
    const again = comprobanteView(`${xml} `.trimEnd());
    expect(again).toBe(first);
    expect(first).toEqual(readComprobanteView(xml));
  });

  it('when a reader tries to change a shared view, at any depth, then it cannot', () => {
    const view = comprobanteView(signedInvoiceXml()) as unknown as Record<string, unknown>;
    expect(() => {
      view.clave = 'otra';
    }).toThrow(TypeError);
    const lineas = view.lineas as unknown[];
    expect(Array.isArray(lineas) && lineas.length > 0).toBe(true);
    expect(() => lineas.push({})).toThrow(TypeError);
    expect(Object.isFrozen(lineas[0])).toBe(true);
  });

  it('when two XML texts differ, then each has its own view', () => {
    const xml = signedInvoiceXml();
    const other = xml.replace(/<Clave>(\d{49})\d<\/Clave>/, '<Clave>$19</Clave>');
    expect(other).not.toBe(xml);
    expect(comprobanteView(other)).not.toBe(comprobanteView(xml));
    expect(comprobanteView(other).clave).not.toBe(comprobanteView(xml).clave);
  });

  it('when the XML cannot be read, then it throws as reading it does, and nothing is kept', () => {
    expect(() => comprobanteView('<no-es-un-comprobante')).toThrow();
    expect(() => comprobanteView('<no-es-un-comprobante')).toThrow();
  });
});
