// The §9 arithmetic a receiver can check on a supplier's signed comprobante without the supplier's inputs:
// every line (MontoTotal = Cantidad × PrecioUnitario, SubTotal = MontoTotal − descuentos, MontoTotalLinea =
// SubTotal + ImpuestoNeto) and the summary (TotalVentaNeta, TotalImpuesto against the lines and the
// desglose, TotalOtrosCargos, TotalComprobante), each within Hacienda's tolerance (REFERENCE §9.1-9.3).
// Works on any v4.4 root (the element names are shared); returns the mismatches, never throws.
import type { Element } from '@xmldom/xmldom';
import { Dec, TOLERANCE, ZERO, formatAmount } from './money';
import { parseXml } from './xades-verify';

export interface ArithmeticMismatch {
  /** Element path, e.g. `LineaDetalle[2]/SubTotal` or `ResumenFactura/TotalComprobante`. */
  path: string;
  found: string;
  expected: string;
}

function kids(el: Element | undefined, name: string): Element[] {
  const out: Element[] = [];
  if (!el) return out;
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === name) out.push(n as Element);
  }
  return out;
}

function amount(el: Element | undefined, name: string): Dec | undefined {
  const t = kids(el, name)[0]?.textContent?.trim();
  return t !== undefined && /^-?\d+(\.\d+)?$/.test(t) ? new Dec(t) : undefined;
}

const total = (values: Array<Dec | undefined>) => values.reduce<Dec>((acc, v) => acc.plus(v ?? ZERO), ZERO);

export function checkReceivedArithmetic(xml: string): ArithmeticMismatch[] {
  const parsed = parseXml(xml);
  if ('error' in parsed) return [];
  const root = parsed.doc.documentElement as unknown as Element;
  const out: ArithmeticMismatch[] = [];
  const compare = (path: string, found: Dec | undefined, expected: Dec) => {
    const f = found ?? ZERO;
    if (f.minus(expected).abs().greaterThan(TOLERANCE)) {
      out.push({ path, found: formatAmount(f), expected: formatAmount(expected) });
    }
  };
  const lines = kids(kids(root, 'DetalleServicio')[0], 'LineaDetalle');
  lines.forEach((line, i) => {
    const at = `LineaDetalle[${i + 1}]`;
    const cantidad = amount(line, 'Cantidad');
    const precio = amount(line, 'PrecioUnitario');
    const montoTotal = amount(line, 'MontoTotal');
    if (cantidad && precio) compare(`${at}/MontoTotal`, montoTotal, cantidad.times(precio));
    const descuentos = total(kids(line, 'Descuento').map((d) => amount(d, 'MontoDescuento')));
    const subTotal = amount(line, 'SubTotal');
    compare(`${at}/SubTotal`, subTotal, (montoTotal ?? ZERO).minus(descuentos));
    const impuestoNeto = amount(line, 'ImpuestoNeto');
    compare(
      `${at}/MontoTotalLinea`,
      amount(line, 'MontoTotalLinea'),
      (subTotal ?? ZERO).plus(impuestoNeto ?? ZERO),
    );
  });
  const resumen = kids(root, 'ResumenFactura')[0];
  if (!resumen) return out;
  const r = (name: string) => amount(resumen, name) ?? ZERO;
  compare(
    'ResumenFactura/TotalVentaNeta',
    amount(resumen, 'TotalVentaNeta'),
    r('TotalVenta').minus(r('TotalDescuentos')),
  );
  if (lines.length > 0) {
    compare(
      'ResumenFactura/TotalVentaNeta (Σ SubTotal)',
      r('TotalVentaNeta'),
      total(lines.map((l) => amount(l, 'SubTotal'))),
    );
    compare(
      'ResumenFactura/TotalImpuesto (Σ ImpuestoNeto)',
      r('TotalImpuesto'),
      total(lines.map((l) => amount(l, 'ImpuestoNeto'))),
    );
  }
  const desglose = kids(resumen, 'TotalDesgloseImpuesto');
  if (desglose.length > 0) {
    compare(
      'ResumenFactura/TotalImpuesto (Σ TotalDesgloseImpuesto)',
      r('TotalImpuesto'),
      total(desglose.map((d) => amount(d, 'TotalMontoImpuesto'))),
    );
  }
  const cargos = kids(root, 'OtrosCargos');
  if (cargos.length > 0) {
    compare(
      'ResumenFactura/TotalOtrosCargos',
      r('TotalOtrosCargos'),
      total(cargos.map((c) => amount(c, 'MontoCargo'))),
    );
  }
  compare(
    'ResumenFactura/TotalComprobante',
    amount(resumen, 'TotalComprobante'),
    r('TotalVentaNeta').plus(r('TotalImpuesto')).plus(r('TotalOtrosCargos')).minus(r('TotalIVADevuelto')),
  );
  return out;
}
