// Hacienda's code tables in Spanish, as the PDF names them (REFERENCE §7; Anexos v4.4 notas 4-10).

export const KIND_TITLES = {
  FE: 'Factura electrónica',
  ND: 'Nota de débito electrónica',
  NC: 'Nota de crédito electrónica',
  TE: 'Tiquete electrónico',
  FEC: 'Factura electrónica de compra',
  FEE: 'Factura electrónica de exportación',
  REP: 'Recibo electrónico de pago',
} as const;

export const TIPOS_IDENTIFICACION: Record<string, string> = {
  '01': 'Cédula física',
  '02': 'Cédula jurídica',
  '03': 'DIMEX',
  '04': 'NITE',
  '05': 'Extranjero no domiciliado',
  '06': 'No contribuyente',
};

export const CONDICIONES_VENTA: Record<string, string> = {
  '01': 'Contado',
  '02': 'Crédito',
  '03': 'Consignación',
  '04': 'Apartado',
  '05': 'Arrendamiento con opción de compra',
  '06': 'Arrendamiento en función financiera',
  '07': 'Cobro a favor de un tercero',
  '08': 'Servicios prestados al Estado',
  '09': 'Pago de servicios prestados al Estado',
  '10': 'Venta a crédito en IVA hasta 90 días (art. 27 LIVA)',
  '11': 'Pago de venta a crédito en IVA hasta 90 días',
  '12': 'Venta de mercancía no nacionalizada',
  '13': 'Venta de bienes usados no contribuyente',
  '14': 'Arrendamiento operativo',
  '15': 'Arrendamiento financiero',
  '99': 'Otros',
};

export const MEDIOS_PAGO: Record<string, string> = {
  '01': 'Efectivo',
  '02': 'Tarjeta',
  '03': 'Cheque',
  '04': 'Transferencia o depósito bancario',
  '05': 'Recaudado por terceros',
  '06': 'SINPE Móvil',
  '07': 'Plataforma digital',
  '99': 'Otros',
};

export const IMPUESTOS: Record<string, string> = {
  '01': 'IVA',
  '02': 'Selectivo de consumo',
  '03': 'Único a los combustibles',
  '04': 'Específico bebidas alcohólicas',
  '05': 'Específico bebidas envasadas sin alcohol y jabones',
  '06': 'Productos de tabaco',
  '07': 'IVA (cálculo especial)',
  '08': 'IVA régimen de bienes usados',
  '12': 'Específico al cemento',
  '99': 'Otros',
};

/** The same taxes by a short name, for narrow columns. */
export const IMPUESTOS_CORTOS: Record<string, string> = {
  '01': 'IVA',
  '02': 'Selectivo',
  '03': 'Combustibles',
  '04': 'Beb. alcohólicas',
  '05': 'Beb. sin alcohol, jabones',
  '06': 'Tabaco',
  '07': 'IVA especial',
  '08': 'IVA bienes usados',
  '12': 'Cemento',
  '99': 'Otros',
};

export const TARIFAS_IVA: Record<string, string> = {
  '01': 'Tarifa 0 %',
  '02': 'Tarifa reducida 1 %',
  '03': 'Tarifa reducida 2 %',
  '04': 'Tarifa reducida 4 %',
  '05': 'Transitorio 0 %',
  '06': 'Transitorio 4 %',
  '07': 'Transitorio 8 %',
  '08': 'Tarifa general 13 %',
  '09': 'Tarifa reducida 0,5 %',
  '10': 'Exenta',
  '11': 'Tarifa 0 % sin derecho a crédito',
};

export const TIPOS_EXONERACION: Record<string, string> = {
  '01': 'Compras autorizadas por la DGT',
  '02': 'Ventas exentas a diplomáticos',
  '03': 'Autorizado por ley especial',
  '04': 'Exenciones DGH, autorización local genérica',
  '05': 'Exenciones DGH, Transitorio V',
  '06': 'Servicios turísticos inscritos ante el ICT',
  '07': 'Transitorio XVII',
  '08': 'Exoneración a zona franca',
  '09': 'Servicios complementarios para la exportación',
  '10': 'Órgano de las corporaciones municipales',
  '11': 'Exenciones DGH, autorización de impuesto local concreta',
  '99': 'Otros',
};

export const INSTITUCIONES: Record<string, string> = {
  '01': 'Ministerio de Hacienda',
  '02': 'Ministerio de Relaciones Exteriores y Culto',
  '03': 'Ministerio de Agricultura y Ganadería',
  '04': 'Ministerio de Economía, Industria y Comercio',
  '05': 'Cruz Roja Costarricense',
  '06': 'Benemérito Cuerpo de Bomberos',
  '07': 'Asociación Obras del Espíritu Santo',
  '08': 'Fecrunapa',
  '09': 'EARTH',
  '10': 'INCAE',
  '11': 'Junta de Protección Social',
  '12': 'ARESEP',
  '99': 'Otros',
};

export const TIPOS_DOC_REFERENCIA: Record<string, string> = {
  '01': 'Factura electrónica',
  '02': 'Nota de débito electrónica',
  '03': 'Nota de crédito electrónica',
  '04': 'Tiquete electrónico',
  '05': 'Nota de despacho',
  '06': 'Contrato',
  '07': 'Procedimiento',
  '08': 'Comprobante emitido en contingencia',
  '09': 'Devolución de mercadería',
  '10': 'Comprobante rechazado por Hacienda',
  '11': 'Sustituye factura rechazada por el receptor',
  '12': 'Sustituye factura de exportación',
  '13': 'Facturación mes vencido',
  '14': 'Comprobante de contribuyente de régimen especial',
  '15': 'Sustituye una factura electrónica de compra',
  '16': 'Comprobante de proveedor no domiciliado',
  '17': 'Nota de crédito a factura electrónica de compra',
  '18': 'Nota de débito a factura electrónica de compra',
  // 2026-04 revision of the Anexos (docs/decisions/0010).
  '19': 'Factura electrónica de exportación',
  '20': 'Recibo electrónico de pago',
  '99': 'Otros',
};

export const CODIGOS_REFERENCIA: Record<string, string> = {
  '01': 'Anula documento de referencia',
  '02': 'Corrige monto',
  '04': 'Referencia a otro documento',
  '05': 'Sustituye comprobante provisional por contingencia',
  '06': 'Devolución de mercancía',
  '07': 'Sustituye comprobante electrónico',
  '08': 'Factura endosada',
  '09': 'Nota de crédito financiera',
  '10': 'Nota de débito financiera',
  '11': 'Proveedor no domiciliado',
  '12': 'Crédito por exoneración posterior a la facturación',
  // 2026-04 revision of the Anexos (docs/decisions/0010).
  '13': 'Anula por error material',
  '14': 'Corrige monto por error material',
  '15': 'Sustituye por error material',
  '16': 'Sustituye comprobante rechazado',
  '17': 'Pago a comprobante',
  '99': 'Otros',
};

/** CodigoDescuento (REFERENCE §7.7, Nota 20). */
export const DESCUENTOS: Record<string, string> = {
  '01': 'Regalía',
  '02': 'Regalía o bonificación con IVA cobrado al cliente',
  '03': 'Bonificación',
  '04': 'Volumen',
  '05': 'Temporada',
  '06': 'Promocional',
  '07': 'Comercial',
  '08': 'Frecuencia',
  '09': 'Sostenido',
  '99': 'Otros',
};

/** Summary element names as the PDF labels them. */
export const TOTALES: Record<string, string> = {
  TotalServGravados: 'Servicios gravados',
  TotalServExentos: 'Servicios exentos',
  TotalServExonerado: 'Servicios exonerados',
  TotalServNoSujeto: 'Servicios no sujetos',
  TotalMercanciasGravadas: 'Mercancías gravadas',
  TotalMercanciasExentas: 'Mercancías exentas',
  TotalMercExonerada: 'Mercancías exoneradas',
  TotalMercNoSujeta: 'Mercancías no sujetas',
  TotalGravado: 'Total gravado',
  TotalExento: 'Total exento',
  TotalExonerado: 'Total exonerado',
  TotalNoSujeto: 'Total no sujeto',
  TotalVenta: 'Total venta',
  TotalDescuentos: 'Descuentos',
  TotalVentaNeta: 'Venta neta',
  TotalImpAsumEmisorFabrica: 'Impuesto asumido por el emisor',
  TotalIVADevuelto: 'IVA devuelto',
};

/** The legend Hacienda requires on the printed representation (resolution and version of the format). */
export const LEYENDA_HACIENDA =
  'Emitida conforme lo establecido en la resolución de Facturación Electrónica MH-DGT-RES-0027-2024 ' +
  'del 13 de noviembre de 2024 de la Dirección General de Tributación. Versión del documento: 4.4';

export function label(table: Record<string, string>, code: string | undefined, other?: string): string {
  if (code === undefined || code === '') return '';
  const name = table[code];
  if (!name) return code;
  return code === '99' && other ? `${name}: ${other}` : name;
}
