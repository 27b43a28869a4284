// Test-only builder of lines with several taxes and discounts. The client amounts are filled in from the
// engine's own arithmetic: documents built with it test the XML, the signature and the flow; the arithmetic
// itself is tested against hand-computed values and independent formulas (arithmetic.test.ts).
import type { DocumentDescuento, DocumentImpuesto, DocumentLinea } from '@cr/contracts';
import { type TaxInput, computeLine } from '../arithmetic';
import { Dec, formatAmount } from '../money';

export interface TaxedLineOptions {
  cabys?: string;
  cantidad?: number;
  precio?: string;
  descuentos?: DocumentDescuento[];
  /** Taxes without `monto`: it is computed. */
  impuestos: Array<Omit<DocumentImpuesto, 'monto'> & { jabon?: boolean }>;
  ivaCobradoFabrica?: '01' | '02';
  baseImponible?: string;
  impuestoAsumidoEmisorFabrica?: string;
  extra?: Partial<Omit<DocumentLinea, 'impuesto'>>;
}

const opt = (v: string | undefined) => (v === undefined ? undefined : new Dec(v));

export function taxedLine(n: number, o: TaxedLineOptions): DocumentLinea & { impuesto: DocumentImpuesto[] } {
  const cantidad = o.cantidad ?? 1;
  const precio = o.precio ?? '1000.00';
  const descuentos = o.descuentos ?? [];
  const inputs: TaxInput[] = o.impuestos.map((t) => {
    const d = t.datosImpuestoEspecifico;
    const tarifa = opt(t.tarifa);
    const factor = opt(t.factorCalculoIVA);
    const porcentaje = opt(d?.porcentaje);
    const volumen = opt(d?.volumenUnidadConsumo);
    return {
      codigo: t.codigo,
      ...(t.codigoTarifa ? { codigoTarifa: t.codigoTarifa } : {}),
      ...(tarifa ? { tarifa } : {}),
      ...(factor ? { factor } : {}),
      ...(d
        ? {
            especifico: {
              cantidadUnidadMedida: new Dec(d.cantidadUnidadMedida),
              impuestoUnidad: new Dec(d.impuestoUnidad),
              ...(porcentaje ? { porcentaje } : {}),
              ...(volumen ? { volumenUnidadConsumo: volumen } : {}),
            },
          }
        : {}),
      ...(t.jabon ? { jabon: true } : {}),
      ...(t.exoneracion ? { tarifaExonerada: new Dec(String(t.exoneracion.porcentajeExoneracion)) } : {}),
    };
  });
  const base = opt(o.baseImponible);
  const asumido = o.ivaCobradoFabrica === '01' ? opt(o.impuestoAsumidoEmisorFabrica) : undefined;
  const a = computeLine({
    cabys: o.cabys ?? '8314300000000',
    cantidad: new Dec(String(cantidad)),
    precioUnitario: new Dec(precio),
    descuentos: descuentos.map((d) => ({ monto: new Dec(d.montoDescuento), codigo: d.codigoDescuento })),
    impuestos: inputs,
    ...(o.ivaCobradoFabrica ? { ivaCobradoFabrica: o.ivaCobradoFabrica } : {}),
    ...(base ? { baseImponible: base } : {}),
    ...(asumido ? { asumidoFabrica: asumido } : {}),
  });
  return {
    numeroLinea: n,
    codigo: o.cabys ?? '8314300000000',
    detalle: `Línea con varios impuestos ${n}`,
    cantidad,
    unidadMedida: 'Unid',
    precioUnitario: precio,
    subTotal: formatAmount(a.montoTotal),
    ...(descuentos.length ? { descuentos } : {}),
    montoTotal: formatAmount(a.subTotal),
    ...(o.ivaCobradoFabrica ? { ivaCobradoFabrica: o.ivaCobradoFabrica } : {}),
    ...(o.baseImponible ? { baseImponible: o.baseImponible } : {}),
    ...(o.impuestoAsumidoEmisorFabrica
      ? { impuestoAsumidoEmisorFabrica: o.impuestoAsumidoEmisorFabrica }
      : {}),
    impuestoNeto: Number(formatAmount(a.impuestoNeto)),
    montoTotalLinea: Number(formatAmount(a.montoTotalLinea)),
    impuesto: o.impuestos.map(
      ({ jabon: _jabon, ...t }, i) =>
        ({ ...t, monto: formatAmount(a.impuestos[i]!.monto) }) as DocumentImpuesto,
    ),
    ...o.extra,
  };
}
