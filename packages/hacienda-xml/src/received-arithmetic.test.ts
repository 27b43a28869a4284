import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
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
    const xml = `<FacturaElectronica xmlns="urn:x"><DetalleServicio><LineaDetalle><Cantidad>2</Cantidad>
      <PrecioUnitario>100</PrecioUnitario><MontoTotal>200</MontoTotal><Descuento><MontoDescuento>10</MontoDescuento></Descuento>
      <SubTotal>190</SubTotal><ImpuestoNeto>24.7</ImpuestoNeto><MontoTotalLinea>214.7</MontoTotalLinea></LineaDetalle></DetalleServicio>
      <ResumenFactura><TotalVenta>200</TotalVenta><TotalDescuentos>10</TotalDescuentos><TotalVentaNeta>190</TotalVentaNeta>
      <TotalDesgloseImpuesto><TotalMontoImpuesto>24.7</TotalMontoImpuesto></TotalDesgloseImpuesto>
      <TotalImpuesto>24.7</TotalImpuesto><TotalComprobante>215.7</TotalComprobante></ResumenFactura></FacturaElectronica>`;
    expect(checkReceivedArithmetic(xml)).toEqual([
      { path: 'ResumenFactura/TotalComprobante', found: '215.70000', expected: '214.70000' },
    ]);
    expect(checkReceivedArithmetic(xml.replace('<SubTotal>190', '<SubTotal>191'))).toEqual(
      expect.arrayContaining([
        { path: 'LineaDetalle[1]/SubTotal', found: '191.00000', expected: '190.00000' },
        { path: 'ResumenFactura/TotalVentaNeta (Σ SubTotal)', found: '190.00000', expected: '191.00000' },
      ]),
    );
    expect(checkReceivedArithmetic('<not-xml')).toEqual([]);
  });
});
