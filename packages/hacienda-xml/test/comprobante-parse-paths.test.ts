// parseComprobante reads each field at its exact path under the root, never the first element of a name
// anywhere: what sits inside ds:Signature is outside what the signature covers (URI="" with the enveloped
// transform), and a field written twice at its path (or in a foreign namespace) would let a reader that takes
// the first by local name (readComprobanteAmounts) see another value than this one.
import { buildSignedDocument } from '../src/build-document';
import { parseComprobante } from '../src/comprobante-parse';
import { HaciendaXmlError } from '../src/errors';
import { openP12 } from '../src/signing-key';
import { ISSUER, invoice, line } from '../src/testing/mothers';
import { makeTestP12 } from '../src/testing/test-certificate';
import { verifySignedXml } from '../src/xades-verify';

const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const FE_NS = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica';
const INJECTED = `<W xmlns="${FE_NS}"><Clave>${'9'.repeat(50)}</Clave><NumeroConsecutivo>99999999999999999999</NumeroConsecutivo><FechaEmision>2030-01-01T00:00:00-06:00</FechaEmision><Emisor><Nombre>X</Nombre><Identificacion><Tipo>02</Tipo><Numero>3101000001</Numero></Identificacion></Emisor><Receptor><Nombre>Y</Nombre><Identificacion><Tipo>02</Tipo><Numero>3101000002</Numero></Identificacion></Receptor><ResumenFactura><CodigoTipoMoneda><CodigoMoneda>USD</CodigoMoneda><TipoCambio>500</TipoCambio></CodigoTipoMoneda><TotalImpuesto>65000.00000</TotalImpuesto><TotalComprobante>565000.00000</TotalComprobante></ResumenFactura><DetalleServicio><LineaDetalle/><LineaDetalle/></DetalleServicio></W>`;

const signed = () =>
  buildSignedDocument({ document: invoice({ detalleServicio: [line(1)] }), issuer: ISSUER, key });

function malformed(xml: string): string {
  try {
    parseComprobante(xml);
  } catch (err) {
    expect(err).toBeInstanceOf(HaciendaXmlError);
    expect((err as HaciendaXmlError).code).toBe('malformed_xml');
    return (err as Error).message;
  }
  throw new Error('parseComprobante read the document');
}

describe('parseComprobante reads the signed document only', () => {
  const genuine = () => {
    const { xml } = signed();
    return { xml, parsed: parseComprobante(xml) };
  };

  it.each([
    [
      'at the end of ds:Signature',
      (xml: string, object: string) => xml.replace('</ds:Signature>', `${object}</ds:Signature>`),
    ],
    [
      'with ds:Signature moved to be the root’s first child',
      (xml: string, object: string) => {
        const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(xml)![0];
        const moved = signature.replace('</ds:Signature>', `${object}</ds:Signature>`);
        return xml.replace(signature, '').replace(/(<FacturaElectronica[^>]*>)/, `$1${moved}`);
      },
    ],
  ])('when a ds:Object %s carries every field, then the signed values are read', (_, wrap) => {
    const { xml, parsed } = genuine();
    const wrapped = wrap(xml, `<ds:Object>${INJECTED}</ds:Object>`);
    // Still a valid signature: what was added is not covered by it.
    expect(verifySignedXml(wrapped).valid).toBe(true);
    expect(parseComprobante(wrapped)).toEqual(parsed);
    expect(parsed).toMatchObject({
      receptor: { numero: '3101779527' },
      emisor: { numero: ISSUER.numeroIdentificacion },
      codigoMoneda: 'CRC',
      lineCount: 1,
    });
  });

  it('when an exempt document has no TotalImpuesto and a ds:Object has one, then none is read', () => {
    const { xml } = signed();
    const withoutTax = xml.replace(/<TotalImpuesto>[^<]*<\/TotalImpuesto>/, '');
    const wrapped = withoutTax.replace(
      '</ds:Signature>',
      `<ds:Object><W xmlns="${FE_NS}"><TotalImpuesto>65000.00000</TotalImpuesto></W></ds:Object></ds:Signature>`,
    );
    expect(parseComprobante(wrapped).totalImpuesto).toBeUndefined();
  });

  it.each([
    [
      'ResumenFactura/TotalImpuesto',
      /(<TotalImpuesto>[^<]*<\/TotalImpuesto>)/,
      '$1<TotalImpuesto>65000.00000</TotalImpuesto>',
    ],
    ['Receptor', /(<\/Receptor>)/, `$1<Receptor><Nombre>Y</Nombre></Receptor>`],
    ['Clave', /(<Clave>[^<]*<\/Clave>)/, '$1$1'],
    [
      'ResumenFactura/CodigoTipoMoneda/CodigoMoneda',
      /(<CodigoMoneda>[^<]*<\/CodigoMoneda>)/,
      '$1<CodigoMoneda>USD</CodigoMoneda>',
    ],
  ])('when %s is written twice, then malformed_xml naming it', (path, at, twice) => {
    const { xml } = signed();
    expect(malformed(xml.replace(at, twice))).toBe(`FacturaElectronica/${path} appears 2 times`);
  });

  it('when a field is in a foreign namespace at its path, then malformed_xml naming it', () => {
    const { xml } = signed();
    const foreign = xml.replace(
      /<TotalComprobante>([^<]*)<\/TotalComprobante>/,
      '<x:TotalComprobante xmlns:x="urn:other">$1</x:TotalComprobante>',
    );
    expect(malformed(foreign)).toBe(
      "FacturaElectronica/ResumenFactura/TotalComprobante is in the namespace urn:other, not the document's",
    );
  });
});
