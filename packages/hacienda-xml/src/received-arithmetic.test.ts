import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { XMLSerializer } from '@xmldom/xmldom';
import { parseXml } from './parse-xml';
import { checkReceivedArithmetic } from './received-arithmetic';
import { SAMPLES_DIR } from './testing/tools';

const samples = existsSync(SAMPLES_DIR) ? readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.xml')) : [];
if (samples.length === 0 && process.env.CI === 'true')
  throw new Error(`CI=true and no samples in ${SAMPLES_DIR}`);

describe('arithmetic of a received comprobante', () => {
  it.each(samples)('when the real accepted sample %s is checked, then nothing is out of place', (file) => {
    expect(checkReceivedArithmetic(readFileSync(path.join(SAMPLES_DIR, file), 'utf8'))).toEqual([]);
  });

  it('when a line and the summary disagree, then each mismatch names the element and the expected amount', () => {
    const xml = `<FacturaElectronica xmlns="urn:x"><DetalleServicio><LineaDetalle><CodigoCABYS>2132100000100</CodigoCABYS><Cantidad>2</Cantidad>
      <PrecioUnitario>100</PrecioUnitario><MontoTotal>200</MontoTotal><Descuento><MontoDescuento>10</MontoDescuento><CodigoDescuento>07</CodigoDescuento></Descuento>
      <SubTotal>190</SubTotal><BaseImponible>190</BaseImponible><Impuesto><Codigo>01</Codigo><CodigoTarifaIVA>08</CodigoTarifaIVA><Tarifa>13</Tarifa><Monto>24.7</Monto></Impuesto>
      <ImpuestoAsumidoEmisorFabrica>0</ImpuestoAsumidoEmisorFabrica><ImpuestoNeto>24.7</ImpuestoNeto><MontoTotalLinea>214.7</MontoTotalLinea></LineaDetalle></DetalleServicio>
      <ResumenFactura><TotalMercanciasGravadas>200</TotalMercanciasGravadas><TotalGravado>200</TotalGravado><TotalVenta>200</TotalVenta><TotalDescuentos>10</TotalDescuentos><TotalVentaNeta>190</TotalVentaNeta>
      <TotalDesgloseImpuesto><Codigo>01</Codigo><CodigoTarifaIVA>08</CodigoTarifaIVA><TotalMontoImpuesto>24.7</TotalMontoImpuesto></TotalDesgloseImpuesto>
      <TotalImpuesto>24.7</TotalImpuesto><TotalComprobante>215.7</TotalComprobante></ResumenFactura></FacturaElectronica>`;
    expect(checkReceivedArithmetic(xml)).toEqual([
      { kind: 'resumen', path: 'ResumenFactura/TotalComprobante', found: '215.70000', expected: '214.70000' },
    ]);
    expect(checkReceivedArithmetic(xml.replace('<SubTotal>190', '<SubTotal>191'))).toEqual(
      expect.arrayContaining([
        { kind: 'linea', path: 'LineaDetalle[1]/SubTotal', found: '191.00000', expected: '190.00000' },
        {
          kind: 'resumen',
          path: 'ResumenFactura/TotalVentaNeta (Σ SubTotal)',
          found: '190.00000',
          expected: '191.00000',
        },
      ]),
    );
    expect(checkReceivedArithmetic('<not-xml')).toEqual([]);
    // The caller's own parse is read instead of the text (the inbox parses an upload once for every check);
    // the tree is left as it was.
    const parsed = parseXml(xml);
    if ('error' in parsed) throw new Error(parsed.error);
    const before = new XMLSerializer().serializeToString(parsed.doc);
    expect(checkReceivedArithmetic('<not-xml', parsed.doc)).toEqual([
      { kind: 'resumen', path: 'ResumenFactura/TotalComprobante', found: '215.70000', expected: '214.70000' },
    ]);
    expect(new XMLSerializer().serializeToString(parsed.doc)).toBe(before);
  });

  it('when a selectivo is left out of the IVA base, or a desglose entry is missing, then each is named', () => {
    const xml = (base: string, iva: string, desglose: string) =>
      `<FacturaElectronica xmlns="urn:x"><DetalleServicio><LineaDetalle><CodigoCABYS>2132100000100</CodigoCABYS><Cantidad>1</Cantidad>
      <PrecioUnitario>1000</PrecioUnitario><MontoTotal>1000</MontoTotal><SubTotal>1000</SubTotal><BaseImponible>${base}</BaseImponible>
      <Impuesto><Codigo>02</Codigo><Tarifa>10</Tarifa><Monto>100</Monto></Impuesto>
      <Impuesto><Codigo>01</Codigo><CodigoTarifaIVA>08</CodigoTarifaIVA><Tarifa>13</Tarifa><Monto>${iva}</Monto></Impuesto>
      <ImpuestoAsumidoEmisorFabrica>0</ImpuestoAsumidoEmisorFabrica><ImpuestoNeto>${100 + Number(iva)}</ImpuestoNeto><MontoTotalLinea>${1100 + Number(iva)}</MontoTotalLinea></LineaDetalle></DetalleServicio>
      <ResumenFactura><TotalMercanciasGravadas>1000</TotalMercanciasGravadas><TotalGravado>1000</TotalGravado><TotalVenta>1000</TotalVenta><TotalVentaNeta>1000</TotalVentaNeta>
      ${desglose}<TotalImpuesto>${100 + Number(iva)}</TotalImpuesto><TotalComprobante>${1100 + Number(iva)}</TotalComprobante></ResumenFactura></FacturaElectronica>`;
    const both = (iva: string) =>
      `<TotalDesgloseImpuesto><Codigo>02</Codigo><TotalMontoImpuesto>100</TotalMontoImpuesto></TotalDesgloseImpuesto><TotalDesgloseImpuesto><Codigo>01</Codigo><CodigoTarifaIVA>08</CodigoTarifaIVA><TotalMontoImpuesto>${iva}</TotalMontoImpuesto></TotalDesgloseImpuesto>`;
    expect(checkReceivedArithmetic(xml('1100', '143', both('143')))).toEqual([]);
    expect(checkReceivedArithmetic(xml('1000', '130', both('130')))).toEqual([
      { kind: 'linea', path: 'LineaDetalle[1]/BaseImponible', found: '1000.00000', expected: '1100.00000' },
    ]);
    expect(checkReceivedArithmetic(xml('1100', '130', both('130')))).toEqual([
      { kind: 'linea', path: 'LineaDetalle[1]/Impuesto[2]/Monto', found: '130.00000', expected: '143.00000' },
    ]);
    expect(
      checkReceivedArithmetic(
        xml(
          '1100',
          '143',
          both('143').replace(/<TotalDesgloseImpuesto><Codigo>02.*?<\/TotalDesgloseImpuesto>/, ''),
        ),
      ),
    ).toEqual(
      expect.arrayContaining([
        {
          kind: 'desglose',
          path: 'ResumenFactura/TotalDesgloseImpuesto[02]',
          found: '(ausente)',
          expected: '100.00000',
        },
      ]),
    );
  });
});
