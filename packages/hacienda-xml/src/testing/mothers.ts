// Test-only builders ("mothers") for documents and issuers.
import type { DocumentImpuesto, DocumentLinea, DocumentRequest } from '@cr/contracts';
import type { Issuer } from '../issuer';

export const ISSUER: Issuer = {
  nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
  tipoIdentificacion: '02',
  numeroIdentificacion: '3101123456',
  nombreComercial: 'PRUEBA & HIJOS <CR>',
  sucursal: 1,
  ubicacion: {
    provincia: '1',
    canton: '01',
    distrito: '01',
    barrio: 'Barrio Amón',
    otrasSenas: '200 m norte del parque',
  },
  telefono: '2222-3333',
  correoElectronico: 'facturas@prueba.cr',
};

/** A line whose client amounts are computed with the same formulas (2-decimal inputs). */
export function line(
  n: number,
  options: {
    cabys?: string;
    cantidad?: number;
    precio?: string;
    descuento?: string;
    codigoTarifa?: string;
    tarifa?: string;
    exoneracion?: { porcentaje: number; tipo?: string; articulo?: string; inciso?: number };
  } = {},
): DocumentLinea & { impuesto: DocumentImpuesto[] } {
  const cantidad = options.cantidad ?? 1;
  const precio = options.precio ?? '1000.00';
  const descuento = options.descuento ?? '0.00';
  const codigoTarifa = options.codigoTarifa ?? '08';
  const tarifa = options.tarifa ?? '13';
  const bruto = Math.round(cantidad * Number(precio) * 100000) / 100000;
  const neto = bruto - Number(descuento);
  const monto = codigoTarifa === '10' ? 0 : Math.round(neto * Number(tarifa) * 1000) / 100000;
  const exon = options.exoneracion
    ? Math.min(monto, Math.round(neto * options.exoneracion.porcentaje * 1000) / 100000)
    : 0;
  const impuestoNeto = Math.round((monto - exon) * 100000) / 100000;
  return {
    numeroLinea: n,
    codigo: options.cabys ?? '8314300000000',
    detalle: `Servicio de prueba ${n}`,
    cantidad,
    unidadMedida: 'Sp',
    precioUnitario: precio,
    subTotal: bruto.toFixed(5),
    descuento,
    montoTotal: neto.toFixed(5),
    impuestoNeto,
    montoTotalLinea: Math.round((neto + impuestoNeto) * 100000) / 100000,
    impuesto: [
      {
        codigo: '01',
        codigoTarifa: codigoTarifa as '08',
        tarifa,
        monto: monto.toFixed(5),
        ...(options.exoneracion
          ? {
              exoneracion: {
                tipoDocumento: (options.exoneracion.tipo ?? '04') as '04',
                numeroDocumento: 'AL-00460853-20',
                nombreInstitucion: '01' as const,
                fechaEmision: '2026-01-15T00:00:00',
                porcentajeExoneracion: options.exoneracion.porcentaje,
                ...(options.exoneracion.articulo ? { articulo: options.exoneracion.articulo } : {}),
                ...(options.exoneracion.inciso !== undefined ? { inciso: options.exoneracion.inciso } : {}),
              },
            }
          : {}),
      },
    ],
  };
}

export function invoice(overrides: Partial<DocumentRequest> = {}): DocumentRequest {
  return {
    emisor: ISSUER.numeroIdentificacion,
    numeroReferencia: 33,
    codigoActividad: '6201.0',
    tipoDoc: '1',
    folioType: 'INVOICE',
    fechaEmision: '2026-05-26T12:30:59-06:00',
    receptor: {
      nombre: 'Pixdea SA',
      identificacion: { tipo: '02', numero: '3101779527' },
      correoElectronico: 'xavier@pixdea.com',
    },
    detalleServicio: [line(1)],
    resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '01' }] },
    ...overrides,
  };
}
