// The amounts the engine computes must fit the XSD types they are written in, or Hacienda (and xmllint)
// refuse the signed document after it was numbered and stored. Every input amount already fits by its
// pattern (13 integer digits, 5 decimals), but products and sums of them do not: one line of 9e12 at 13 %
// IVA has a MontoTotalLinea of 1.017e13. These checks run after the arithmetic and name the request field
// that carries (or would carry) the amount, in the request's naming (REFERENCE §9).
import { SUMMARY_TOTAL_NAMES } from '@cr/contracts';
import type { SummaryAmounts, TaxAmounts } from './arithmetic';
import type { CheckedLine, CheckedTax } from './line-check';
import { Dec, formatAmount } from './money';

/** DecimalDineroType: decimal(18,5) with maxInclusive 9999999999999.99999. */
export const XSD_MAX_AMOUNT = new Dec('9999999999999.99999');
/** Proporcion (and ProporcionSurtido): decimal totalDigits 10, fractionDigits 5, written with 5 decimals. */
export const XSD_MAX_PROPORCION = new Dec('99999.99999');

type Add = (path: string, reason: string) => void;

function tooLarge(value: Dec, max: Dec, xmlName: string): string | undefined {
  if (!value.gt(max)) return undefined;
  return `the computed ${xmlName} ${formatAmount(value)} exceeds ${formatAmount(max)}, the largest the XSD allows`;
}

function limit(add: Add, path: string, value: Dec, xmlName: string, max = XSD_MAX_AMOUNT): void {
  const reason = tooLarge(value, max, xmlName);
  if (reason) add(path, reason);
}

function limitTaxes(add: Add, taxes: readonly TaxAmounts[], checked: readonly CheckedTax[]): void {
  taxes.forEach((t, j) => {
    const path = checked[j]?.path;
    if (path === undefined) return;
    limit(add, `${path}.monto`, t.monto, 'Monto');
    if (t.montoExoneracion)
      limit(add, `${path}.exoneracion.montoExoneracion`, t.montoExoneracion, 'MontoExoneracion');
    if (t.proporcion)
      limit(
        add,
        `${path}.datosImpuestoEspecifico.proporcion`,
        t.proporcion,
        'Proporcion (cantidadUnidadMedida × porcentaje)',
        XSD_MAX_PROPORCION,
      );
  });
}

/** Refuses, by path, every computed line amount and summary total that the XSD could not carry. */
export function checkAmountLimits(lines: readonly CheckedLine[], summary: SummaryAmounts, add: Add): void {
  lines.forEach((l, i) => {
    const p = `detalleServicio[${i}]`;
    // The request's `subTotal` is the XML MontoTotal and its `montoTotal` the XML SubTotal (≤ MontoTotal).
    limit(add, `${p}.subTotal`, l.montoTotal, 'MontoTotal (cantidad × precioUnitario)');
    limit(add, `${p}.baseImponible`, l.baseImponible, 'BaseImponible');
    if (l.surtido) {
      limit(add, `${p}.precioUnitario`, l.precioUnitario, 'PrecioUnitario (the components’ subTotal)');
      l.surtido.components.forEach((c, k) => {
        const cp = `${p}.detalleSurtido[${k}]`;
        limit(add, `${cp}.montoTotal`, c.montoTotal, 'MontoTotalSurtido (cantidad × precioUnitario)');
        limit(add, `${cp}.baseImponible`, c.baseImponible, 'BaseImponibleSurtido');
        limitTaxes(add, c.impuestos, c.checkedTaxes);
      });
      // The line's own Impuesto entries: each sums one tax code of every component, times the quantity.
      for (const t of l.impuestos)
        limit(
          add,
          `${p}.detalleSurtido`,
          t.monto,
          `Monto of the line's tax ${t.codigo} (Σ cantidad × components')`,
        );
    } else limitTaxes(add, l.impuestos, l.checkedTaxes);
    limit(
      add,
      `${p}.impuestoAsumidoEmisorFabrica`,
      l.impuestoAsumidoEmisorFabrica,
      'ImpuestoAsumidoEmisorFabrica',
    );
    limit(add, `${p}.impuestoNeto`, l.impuestoNeto, 'ImpuestoNeto');
    limit(add, `${p}.montoTotalLinea`, l.montoTotalLinea, 'MontoTotalLinea');
  });
  // Every other total (the FEE's exentos + no sujetos included) is at most TotalVenta or one of these.
  for (const name of SUMMARY_TOTAL_NAMES)
    limit(add, `resumenFactura.${name}`, summary[name], `${name[0]!.toUpperCase()}${name.slice(1)}`);
  limit(add, 'resumenFactura.totalOtrosCargos', summary.totalOtrosCargos, 'TotalOtrosCargos');
  for (const d of summary.totalDesgloseImpuesto)
    limit(
      add,
      'resumenFactura.totalDesgloseImpuesto',
      d.totalMontoImpuesto,
      `TotalMontoImpuesto of tax ${d.codigo}${d.codigoTarifa ? `/${d.codigoTarifa}` : ''}`,
    );
}
