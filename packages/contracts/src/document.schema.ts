// Spec endpoint 3 (POST /api/enviar/items): the electronic document a client submits, plus the optional
// v4.4 fields the spec does not carry. Only structural rules live here; cross-field rules (receptor per
// tipoDoc, tarifa vs codigoTarifa, totals, exoneration fields per type) are checked by @cr/hacienda-xml.
import { type Static, type TOptional, type TString, Type } from '@sinclair/typebox';
import { CODIGOS_MONEDA } from './currencies';
import { EmailAddress } from './delivery.schema';

/** The request's tipoDoc: 1 FE, 2 ND, 3 NC, 4 TE, 8 FEC, 9 FEE, 10 REP (the consecutivo's type without the 0). */
export const TIPOS_DOC = ['1', '2', '3', '4', '8', '9', '10'] as const;
export type TipoDoc = (typeof TIPOS_DOC)[number];

/** The folioType a request may carry; INVOICE stays valid for every kind (the spec's original value). */
export const REQUEST_FOLIO_TYPES = ['INVOICE', 'CREDIT_NOTE', 'DEBIT_NOTE', 'PAYMENT_RECEIPT'] as const;
export type RequestFolioType = (typeof REQUEST_FOLIO_TYPES)[number];

/** A non-negative decimal amount as a string: up to 13 integer digits and 5 decimals, dot separator. */
export const DECIMAL_STRING_PATTERN = '^\\d{1,13}(\\.\\d{1,5})?$';
/** CIIU 4 activity code as Hacienda returns it, e.g. `6201.0` (6 characters). */
export const ACTIVITY_CODE_PATTERN = '^\\d{4}\\.\\d$';

const amount = (description: string) =>
  Type.String({
    pattern: DECIMAL_STRING_PATTERN,
    description: `${description} (decimal string, e.g. "1250.00")`,
  });

// Code lists are a plain `enum`: one check, where an `anyOf` of constants would make ajv (allErrors)
// allocate an error per failing branch even for valid input (~18 µs per line for UnidadMedida).
const code = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], description });

/** Unidades de medida of the v4.4 XSD (Nota 15), case-sensitive. */
export const UNIDADES_MEDIDA = [
  '1',
  '´',
  '´´',
  '°C',
  '1/m',
  'A',
  'A/m',
  'A/m²',
  'Acv',
  'Al',
  'Alc',
  'B',
  'Bq',
  'C',
  'C/kg',
  'C/m²',
  'C/m³',
  'Cc',
  'Cd',
  'cd/m²',
  'Cm',
  'cm',
  'Cu',
  'D',
  'eV',
  'F',
  'F/m',
  'Fa',
  'G',
  'Gal',
  'Gy',
  'Gy/s',
  'h',
  'H',
  'H/m',
  'Hz',
  'I',
  'J',
  'J/(kg·K)',
  'J/(mol·K)',
  'J/K',
  'J/kg',
  'J/m³',
  'J/mol',
  'K',
  'Kat',
  'kat/m³',
  'Kg',
  'kg/m³',
  'Km',
  'Kw',
  'kWh',
  'L',
  'Lm',
  'Ln',
  'Lx',
  'M',
  'm/s',
  'm/s²',
  'm²',
  'm³',
  'Min',
  'mL',
  'Mm',
  'Mol',
  'mol/m³',
  'N',
  'N/m',
  'N·m',
  'Np',
  'º',
  'Os',
  'Otros',
  'Oz',
  'Pa',
  'Pa·s',
  'Qq',
  'Rad',
  'rad/s',
  'rad/s²',
  'S',
  's',
  'Sp',
  'Spe',
  'Sr',
  'St',
  'Sv',
  't',
  'T',
  'U',
  'Ua',
  'Unid',
  'V',
  'V/m',
  'W',
  'W/(m·K)',
  'W/(m²·sr)',
  'W/m²',
  'W/sr',
  'Wb',
  // U+2126 OHM SIGN, as the XSD enumerates it; not U+03A9 (Greek capital omega), which keyboards type.
  '\u2126',
] as const;

/**
 * Units a request may spell differently from the XSD, and the XSD's spelling the XML is written with: the
 * two omegas look the same, and an enumeration compares code points.
 */
const ALIASES = { '\u03A9': '\u2126' } as const satisfies Record<string, (typeof UNIDADES_MEDIDA)[number]>;
export const UNIDAD_MEDIDA_ALIASES: Readonly<Record<string, (typeof UNIDADES_MEDIDA)[number]>> = ALIASES;
/** What a request may send: the XSD's units and their aliases. */
const UNIDADES_MEDIDA_ACCEPTED = [
  ...UNIDADES_MEDIDA,
  ...(Object.keys(ALIASES) as Array<keyof typeof ALIASES>),
];

export const TIPOS_IDENTIFICACION = ['01', '02', '03', '04', '05', '06'] as const;
/**
 * The national ids (física, jurídica, DIMEX, NITE): fixed digit lengths, up to 12 characters. 05 (Extranjero No
 * Domiciliado) and 06 (No Contribuyente) take up to 20 letters or digits (REFERENCE §7.1).
 */
export const TIPOS_IDENTIFICACION_NACIONAL = ['01', '02', '03', '04'] as const;
export const CODIGOS_IMPUESTO = ['01', '02', '03', '04', '05', '06', '07', '08', '12', '99'] as const;
export const CODIGOS_TARIFA_IVA = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11'] as const;
export const TIPOS_EXONERACION = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '10',
  '11',
  '99',
] as const;
export const INSTITUCIONES_EXONERACION = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '10',
  '11',
  '12',
  '99',
] as const;
export const TIPOS_OTROS_CARGOS = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '99'] as const;
export const MEDIOS_PAGO = ['01', '02', '03', '04', '05', '06', '07', '99'] as const;
export const CONDICIONES_VENTA = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '10',
  '11',
  '12',
  '13',
  '14',
  '15',
  '99',
] as const;
export const CODIGOS_DESCUENTO = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '99'] as const;
export const TIPOS_TRANSACCION = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '10',
  '11',
  '12',
  '13',
] as const;
export const TIPOS_CODIGO_COMERCIAL = ['01', '02', '03', '04', '99'] as const;
export const TIPOS_DOC_REFERENCIA = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '10',
  '11',
  '12',
  '13',
  '14',
  '15',
  '16',
  '17',
  '18',
  // 2026-04 revision of the Anexos (REFERENCE §7.10, §11.3): 19 FEE, 20 REP; not yet in the published XSDs.
  '19',
  '20',
  '99',
] as const;
export const CODIGOS_REFERENCIA = [
  '01',
  '02',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '10',
  '11',
  '12',
  // 2026-04 revision of the Anexos (REFERENCE §7.10, §11.3), mandatory since 2026-11-01: 13 anula por error
  // material, 14 corrige monto por error material, 15 sustituye por error material, 16 sustituye comprobante
  // rechazado, 17 pago a comprobante (REP). Not yet in the published XSDs (docs/decisions/0010).
  '13',
  '14',
  '15',
  '16',
  '17',
  '99',
] as const;

const ISO_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})?$';

/** The same, or a bare date (the exoneration's document, which Hacienda's lookup dates at midnight). */
const ISO_DATE_OR_DATE_TIME =
  '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})?)?$';

const fechaHora = (description: string) =>
  Type.String({
    pattern: ISO_DATE_TIME,
    description: `${description}; ISO 8601 date-time, with or without UTC offset (no offset means Costa Rica time, UTC-06:00)`,
  });

/**
 * NumTelefono is an xs:integer from 100 to 20 digits (REFERENCE §8): 3 to 20 digits whose value is at least
 * 100, so leading zeros may pad it but "000" or "00000000099" may not stand for it. (FEC and FEE raise the
 * minimum to 10000000; kind-check refuses a shorter number there.)
 */
export const TELEFONO_PATTERN = '^(?=\\d{3,20}$)0*[1-9]\\d{2,}$';
const TELEFONO_DESCRIPTION =
  'Telephone, digits only, value at least 100 (at least 10000000 in tipoDoc 8 and 9); written with country code 506';
/** Canton and Distrito are xs:positiveInteger with pattern \d\d: 01 to 99, never 00. */
export const TWO_DIGIT_CODE_PATTERN = '^(0[1-9]|[1-9]\\d)$';

export const DocumentIdentificacion = Type.Object(
  {
    tipo: code(
      TIPOS_IDENTIFICACION,
      '01 física, 02 jurídica, 03 DIMEX, 04 NITE, 05 extranjero no domiciliado (tickets, ND/NC, export invoices; FEC supplier), 06 no contribuyente (FEC supplier only)',
    ),
    numero: Type.String({
      minLength: 1,
      maxLength: 20,
      pattern: '^[A-Za-z0-9]+$',
      description: 'Identification number without hyphens',
    }),
  },
  { additionalProperties: false },
);

export const DocumentReceptor = Type.Object(
  {
    nombre: Type.String({ minLength: 3, maxLength: 100, description: 'Full name or business name' }),
    telefono: Type.Optional(
      Type.String({
        pattern: TELEFONO_PATTERN,
        description: TELEFONO_DESCRIPTION,
      }),
    ),
    identificacion: DocumentIdentificacion,
    correoElectronico: Type.Optional(Type.String({ format: 'email', maxLength: 160 })),
    nombreComercial: Type.Optional(
      Type.String({ minLength: 3, maxLength: 80, description: 'v4.4 NombreComercial (optional)' }),
    ),
    otrasSenasExtranjero: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 300,
        description: 'v4.4 OtrasSenasExtranjero: foreign address, only for type 05',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DocumentUbicacion = Type.Object(
  {
    provincia: Type.String({ pattern: '^[1-7]$', description: 'Provincia code (Nota 14)' }),
    canton: Type.String({ pattern: TWO_DIGIT_CODE_PATTERN, description: 'Cantón code, 2 digits, 01 to 99' }),
    distrito: Type.String({
      pattern: TWO_DIGIT_CODE_PATTERN,
      description: 'Distrito code, 2 digits, 01 to 99',
    }),
    barrio: Type.Optional(Type.String({ minLength: 5, maxLength: 50, description: 'Barrio name' })),
    otrasSenas: Type.String({ minLength: 5, maxLength: 250, description: 'Address details' }),
  },
  { additionalProperties: false },
);

export const DocumentProveedor = Type.Object(
  {
    nombre: Type.String({ minLength: 5, maxLength: 100, description: 'Supplier name (the XML Emisor)' }),
    identificacion: DocumentIdentificacion,
    nombreComercial: Type.Optional(Type.String({ minLength: 3, maxLength: 80 })),
    ubicacion: Type.Optional(DocumentUbicacion),
    otrasSenasExtranjero: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 300,
        description: 'Foreign address of a supplier of type 05 (instead of ubicacion)',
      }),
    ),
    telefono: Type.Optional(
      Type.String({
        pattern: TELEFONO_PATTERN,
        description: TELEFONO_DESCRIPTION,
      }),
    ),
    correoElectronico: Type.Optional(Type.String({ format: 'email', maxLength: 160 })),
  },
  {
    additionalProperties: false,
    description:
      'FEC (tipoDoc 8) only: the supplier who does not invoice, written as the XML Emisor; our issuer is the Receptor',
  },
);

export const DocumentCodigoComercial = Type.Object(
  {
    tipo: code(
      TIPOS_CODIGO_COMERCIAL,
      'Nota 12: 01 vendedor, 02 comprador, 03 industria, 04 uso interno, 99 otros',
    ),
    codigo: Type.String({ minLength: 1, maxLength: 20 }),
  },
  { additionalProperties: false },
);

export const DocumentExoneracion = Type.Object(
  {
    tipoDocumento: code(
      TIPOS_EXONERACION,
      'TipoDocumentoEX1 (REFERENCE §7.5); 01, 05, 06, 07 only in credit notes',
    ),
    numeroDocumento: Type.String({
      minLength: 3,
      maxLength: 40,
      description: 'Authorization number exactly as issued, hyphens included',
    }),
    nombreInstitucion: code(
      INSTITUCIONES_EXONERACION,
      'NombreInstitucion code (Nota 23); 99 requires nombreInstitucionOtros',
    ),
    fechaEmision: Type.String({
      pattern: ISO_DATE_OR_DATE_TIME,
      description:
        "Issue date of the exoneration document; ISO 8601 date (Costa Rica midnight) or date-time, with or without UTC offset (no offset means Costa Rica time, UTC-06:00); not a later day in Costa Rica than the document's fechaEmision",
    }),
    porcentajeExoneracion: Type.Number({
      minimum: 0,
      maximum: 99.99,
      description:
        'TarifaExonerada in percentage points (13 = full VAT exoneration); at most the line tarifa',
    }),
    nombreInstitucionOtros: Type.Optional(Type.String({ minLength: 5, maxLength: 160 })),
    articulo: Type.Optional(
      Type.String({
        pattern: '^\\d{1,6}$',
        description: 'Legal article; required for types 02, 03, 06, 07, 08',
      }),
    ),
    inciso: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 999999,
        description: 'Sub-clause; required for types 02, 03, 06, 07, 08',
      }),
    ),
    tipoDocumentoOtro: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 100,
        description: 'v4.4 TipoDocumentoOTRO; required for type 99',
      }),
    ),
    montoExoneracion: Type.Optional(
      amount('Client-computed MontoExoneracion; checked against the engine within 0.01'),
    ),
  },
  { additionalProperties: false },
);

/** DatosImpuestoEspecifico: the inputs of the specific (non-rate) taxes 03–06 (REFERENCE §9.1 item 5). */
export const DocumentDatosImpuestoEspecifico = Type.Object(
  {
    cantidadUnidadMedida: Type.String({
      pattern: '^\\d{1,5}(\\.\\d{1,2})?$',
      description:
        'CantidadUnidadMedida (7,2): litres of fuel (03), volume per unit (04, 05), units of tobacco (06)',
    }),
    porcentaje: Type.Optional(
      Type.String({
        pattern: '^\\d{1,2}(\\.\\d{1,2})?$',
        description: 'Porcentaje (4,2): alcohol content; required for code 04',
      }),
    ),
    proporcion: Type.Optional(
      Type.String({
        pattern: '^\\d{1,5}(\\.\\d{1,5})?$',
        description: 'Proporcion (10,5) = cantidadUnidadMedida × porcentaje (code 04); computed when omitted',
      }),
    ),
    volumenUnidadConsumo: Type.Optional(
      Type.String({
        pattern: '^\\d{1,5}(\\.\\d{1,2})?$',
        description: 'VolumenUnidadConsumo (7,2); required for code 05 (beverages and soaps)',
      }),
    ),
    impuestoUnidad: amount('ImpuestoUnidad: the tax per unit of measure'),
  },
  { additionalProperties: false },
);

export const DocumentImpuesto = Type.Object(
  {
    codigo: code(
      CODIGOS_IMPUESTO,
      'Nota 8: 01 IVA, 02 selectivo de consumo, 03 combustibles, 04 bebidas alcohólicas, 05 bebidas sin alcohol y jabones, 06 tabaco, 07 IVA cálculo especial, 08 IVA bienes usados, 12 cemento, 99 otros',
    ),
    codigoImpuestoOtro: Type.Optional(
      Type.String({ minLength: 5, maxLength: 100, description: 'CodigoImpuestoOTRO; required for 99' }),
    ),
    codigoTarifa: Type.Optional(
      code(CODIGOS_TARIFA_IVA, 'CodigoTarifaIVA; required for 01 and 07 only; 08 is the general 13% rate'),
    ),
    tarifa: Type.Optional(
      Type.String({
        pattern: '^\\d{1,2}(\\.\\d{1,2})?$',
        description:
          'Rate in percentage points: matching codigoTarifa for 01/07 (e.g. "13"); the rate of 02, 12 and 99',
      }),
    ),
    factorCalculoIVA: Type.Optional(
      Type.String({
        pattern: '^\\d(\\.\\d{1,4})?$',
        description: 'FactorCalculoIVA (5,4); required for 08 (IVA régimen de bienes usados)',
      }),
    ),
    datosImpuestoEspecifico: Type.Optional(DocumentDatosImpuestoEspecifico),
    monto: amount('Computed tax amount'),
    montoExportacion: Type.Optional(
      amount(
        'MontoExportacion: only in an export invoice (tipoDoc 9) or a debit/credit note (2, 3), on a special tax (not IVA 01/07/08) of a goods line; informational, written as given and outside every total',
      ),
    ),
    exoneracion: Type.Optional(DocumentExoneracion),
  },
  { additionalProperties: false },
);

export type DocumentImpuesto = Static<typeof DocumentImpuesto>;

export const DocumentDescuento = Type.Object(
  {
    montoDescuento: amount('MontoDescuento; each one is taken from what the previous ones left'),
    codigoDescuento: code(
      CODIGOS_DESCUENTO,
      'Nota 20: 01 regalía, 02 regalía con IVA cobrado al cliente, 03 bonificación, … 07 comercial, 99 otros',
    ),
    codigoDescuentoOtro: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 100,
        description: 'CodigoDescuentoOTRO: required with codigoDescuento 99',
      }),
    ),
    naturalezaDescuento: Type.Optional(
      Type.String({ minLength: 3, maxLength: 80, description: 'Required with codigoDescuento 99' }),
    ),
  },
  { additionalProperties: false },
);

/** The taxes a surtido component can carry: its ImpuestoSurtido has no FactorCalculoIVA (08) and no editable base (07). */
export const CODIGOS_IMPUESTO_SURTIDO = ['01', '02', '03', '04', '05', '06', '12', '99'] as const;

/** One tax of a surtido component (ImpuestoSurtido): no exoneration, factor or MontoExportacion there. */
export const DocumentImpuestoSurtido = Type.Object(
  {
    codigo: code(
      CODIGOS_IMPUESTO_SURTIDO,
      'CodigoImpuestoSurtido (Nota 8) without 07 and 08, which the component has no place for',
    ),
    codigoImpuestoOtro: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 100,
        description: 'CodigoImpuestoOTROSurtido; required for 99',
      }),
    ),
    codigoTarifa: Type.Optional(code(CODIGOS_TARIFA_IVA, 'CodigoTarifaIVASurtido; required for 01')),
    tarifa: Type.Optional(
      Type.String({
        pattern: '^\\d{1,2}(\\.\\d{1,2})?$',
        description:
          'TarifaSurtido in percentage points: matching codigoTarifa for 01; the rate of 02, 12 and 99',
      }),
    ),
    datosImpuestoEspecifico: Type.Optional(DocumentDatosImpuestoEspecifico),
    monto: amount('MontoImpuestoSurtido of one package; checked against the engine'),
  },
  { additionalProperties: false },
);

/** A discount of a surtido component (DescuentoSurtido). */
export const DocumentDescuentoSurtido = Type.Object(
  {
    montoDescuento: amount('MontoDescuentoSurtido; each one is taken from what the previous ones left'),
    codigoDescuento: code(CODIGOS_DESCUENTO, 'CodigoDescuentoSurtido (Nota 20)'),
    descuentoOtros: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 80,
        description: 'DescuentoSurtidoOtros; required with code 99',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * One component of a surtido (package, combo) line: LineaDetalleSurtido. Its amounts are those of one
 * package; the line's quantity multiplies them (ADR 0024). Unlike the line's historical `subTotal` /
 * `montoTotal`, the component's amounts carry their XML meaning.
 */
export const DocumentComponenteSurtido = Type.Object(
  {
    codigo: Type.String({ pattern: '^\\d{13}$', description: 'CodigoCABYSSurtido, 13 digits' }),
    codigoComercial: Type.Optional(
      Type.Array(DocumentCodigoComercial, {
        maxItems: 5,
        description: 'CodigoComercialSurtido: TipoSurtido (Nota 12) and CodigoSurtido',
      }),
    ),
    cantidad: Type.Number({
      exclusiveMinimum: 0,
      maximum: 9999999999999,
      description: 'CantidadSurtido in one package, at most 3 decimals',
    }),
    unidadMedida: code(
      UNIDADES_MEDIDA_ACCEPTED,
      'UnidadMedidaSurtido (v4.4 XSD, case-sensitive; Ω is written as U+2126)',
    ),
    unidadMedidaComercial: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    detalle: Type.String({ minLength: 3, maxLength: 200, description: 'DetalleSurtido' }),
    precioUnitario: amount('PrecioUnitarioSurtido (≥ 0)'),
    montoTotal: Type.Optional(amount('MontoTotalSurtido = cantidad × precioUnitario; checked when given')),
    descuentos: Type.Optional(Type.Array(DocumentDescuentoSurtido, { maxItems: 5 })),
    subTotal: Type.Optional(amount('SubTotalSurtido = montoTotal − descuentos; checked when given')),
    baseImponible: Type.Optional(
      amount('BaseImponibleSurtido = subTotal + taxes 02, 04, 05, 12; checked when given'),
    ),
    impuestos: Type.Array(DocumentImpuestoSurtido, {
      minItems: 1,
      maxItems: 1000,
      description: 'ImpuestoSurtido: at least one (the XSD requires it), at most one IVA (01)',
    }),
  },
  { additionalProperties: false },
);

export const DocumentLinea = Type.Object(
  {
    numeroLinea: Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'Consecutive line number starting at 1',
    }),
    codigo: Type.Optional(
      Type.String({
        pattern: '^\\d{13}$',
        description:
          'CABYS code, 13 digits; required in every kind but a payment receipt (tipoDoc 10), whose XML line has none',
      }),
    ),
    partidaArancelaria: Type.Optional(
      Type.String({
        pattern: '^\\d{12}$',
        description:
          'Tariff heading (PartidaArancelaria, 12 digits): required on goods lines of an export invoice (tipoDoc 9); allowed in ND/NC',
      }),
    ),
    detalle: Type.String({ minLength: 3, maxLength: 200 }),
    cantidad: Type.Number({
      exclusiveMinimum: 0,
      maximum: 9999999999999,
      description: 'Quantity, at most 3 decimals',
    }),
    unidadMedida: Type.Optional(
      code(
        UNIDADES_MEDIDA_ACCEPTED,
        'Unit of measure of the v4.4 XSD (case-sensitive), e.g. Unid, Os, Sp; Ω (U+03A9 or U+2126) is written as U+2126; required in every kind but a payment receipt (tipoDoc 10)',
      ),
    ),
    unidadMedidaComercial: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    numeroVINoSerie: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 17 }), {
        maxItems: 1000,
        description: 'NumeroVINoSerie: VIN or serial numbers of vehicles sold on the line',
      }),
    ),
    registroMedicamento: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Ministerio de Salud registration number' }),
    ),
    formaFarmaceutica: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9]{1,3}$', description: 'FormaFarmaceutica code (Nota 19)' }),
    ),
    detalleSurtido: Type.Optional(
      Type.Array(DocumentComponenteSurtido, {
        minItems: 1,
        maxItems: 20,
        description:
          'DetalleSurtido: the components of a package/combo line (at least 3 with different CABYS codes, at most 20). The line then has no impuesto nor discounts of its own: its taxes are the sum of the components’ (ADR 0024). Not in purchase invoices or payment receipts',
      }),
    ),
    precioUnitario: amount('Unit price (> 0); for a surtido line the sum of its components’ subTotal'),
    subTotal: amount('Quantity times unit price (the XML MontoTotal)'),
    descuento: Type.Optional(
      amount('Single discount amount; "0.00" when none (legacy form of one `descuentos` entry)'),
    ),
    codigoDescuento: Type.Optional(
      code(
        CODIGOS_DESCUENTO,
        'v4.4 CodigoDescuento (Nota 20) for a non-zero discount; default 07 (comercial)',
      ),
    ),
    naturalezaDescuento: Type.Optional(
      Type.String({ minLength: 3, maxLength: 80, description: 'Required with codigoDescuento 99' }),
    ),
    descuentos: Type.Optional(
      Type.Array(DocumentDescuento, {
        maxItems: 5,
        description: 'Up to 5 discounts (instead of descuento/codigoDescuento/naturalezaDescuento)',
      }),
    ),
    montoTotal: amount('Line total before taxes, after the discount (the XML SubTotal)'),
    ivaCobradoFabrica: Type.Optional(
      code(
        ['01', '02'] as const,
        'Nota 21: 01 IVA cobrado a nivel de fábrica (baseImponible editable), 02 exento por cobro en fábrica',
      ),
    ),
    baseImponible: Type.Optional(
      amount(
        'BaseImponible: SubTotal plus taxes 02, 04, 05 and 12; an input with ivaCobradoFabrica 01 or a 07 tax, otherwise checked',
      ),
    ),
    impuestoAsumidoEmisorFabrica: Type.Optional(
      amount(
        'Tax absorbed by the issuer (regalías 01/03) or charged at factory level; the declared factory amount with ivaCobradoFabrica 01, otherwise checked',
      ),
    ),
    impuestoNeto: Type.Number({ minimum: 0, description: 'Net tax amount of the line' }),
    montoTotalLinea: Type.Number({ minimum: 0, description: 'Line total including taxes' }),
    codigoComercial: Type.Optional(Type.Array(DocumentCodigoComercial, { maxItems: 5 })),
    tipoTransaccion: Type.Optional(
      code(TIPOS_TRANSACCION, 'v4.4 TipoTransaccion (Nota 22); not allowed in tickets'),
    ),
    // if/then/else rather than anyOf: a bad entry is reported once, at its own path, instead of once per
    // branch (plus "must be object" from the branch the client did not mean).
    impuesto: Type.Optional(
      Type.Unsafe<DocumentImpuesto[] | DocumentImpuesto>({
        if: { type: 'array' },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword; the schema is never awaited
        then: Type.Array(DocumentImpuesto, { minItems: 1, maxItems: 1000 }),
        else: DocumentImpuesto,
        description:
          'Taxes of the line: an array (up to 1000, at most one IVA entry 01/07/08) or a single tax object; required unless the line has detalleSurtido',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DocumentOtroCargo = Type.Object(
  {
    tipoDocumento: code(
      TIPOS_OTROS_CARGOS,
      'TipoDocumentoOC; 99 means other (requires tipoDocumentoOtros), 04 requires the third party',
    ),
    detalle: Type.String({ minLength: 1, maxLength: 160 }),
    montoCargo: amount('Charge amount'),
    porcentaje: Type.String({
      pattern: '^\\d{1,4}(\\.\\d{1,5})?$',
      description: 'Charge percentage (PorcentajeOC)',
    }),
    nombreTercero: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    tipoDocumentoOtros: Type.Optional(
      Type.String({ minLength: 5, maxLength: 100, description: 'v4.4; required for 99' }),
    ),
    identificacionTercero: Type.Optional(DocumentIdentificacion),
  },
  { additionalProperties: false },
);

export const DocumentMedioPago = Type.Object(
  {
    tipoMedioPago: Type.Union(
      [code(MEDIOS_PAGO, 'Two-digit code'), Type.Integer({ minimum: 1, maximum: 99 })],
      {
        description:
          '01 cash, 02 card, 03 cheque, 04 transfer, 05 third parties, 06 SINPE Móvil, 07 digital platform, 99 other; an integer is read as its two-digit code',
      },
    ),
    medioPagoOtros: Type.Optional(
      Type.String({ minLength: 3, maxLength: 100, description: 'v4.4 MedioPagoOtros; required for 99' }),
    ),
    totalMedioPago: Type.Optional(
      amount('Total assigned to this means; required for each when there are several'),
    ),
  },
  { additionalProperties: false },
);

export const DocumentInformacionReferencia = Type.Object(
  {
    tipoDocumento: code(TIPOS_DOC_REFERENCIA, 'TipoDocIR (REFERENCE §7.10), e.g. 01 factura electrónica'),
    tipoDocumentoOtro: Type.Optional(
      Type.String({ minLength: 5, maxLength: 100, description: 'Required for 99' }),
    ),
    numero: Type.String({
      minLength: 1,
      maxLength: 50,
      description: 'Clave (50 digits) of the referenced electronic document',
    }),
    fechaEmision: fechaHora('Issue date of the referenced document (at most 10 years old)'),
    codigo: code(
      CODIGOS_REFERENCIA,
      'Código de referencia: 01 anula, 02 corrige monto, 04 referencia, … 99 otros',
    ),
    codigoOtro: Type.Optional(Type.String({ minLength: 5, maxLength: 100, description: 'Required for 99' })),
    razon: Type.String({ minLength: 3, maxLength: 180 }),
  },
  { additionalProperties: false },
);

/** ResumenFactura totals a client may send; each one given is checked against the engine's (REFERENCE §9.2). */
export const SUMMARY_TOTAL_NAMES = [
  'totalServGravados',
  'totalServExentos',
  'totalServExonerado',
  'totalServNoSujeto',
  'totalMercanciasGravadas',
  'totalMercanciasExentas',
  'totalMercExonerada',
  'totalMercNoSujeta',
  'totalGravado',
  'totalExento',
  'totalExonerado',
  'totalNoSujeto',
  'totalVenta',
  'totalDescuentos',
  'totalVentaNeta',
  'totalImpuesto',
  'totalImpAsumEmisorFabrica',
  'totalIVADevuelto',
  'totalComprobante',
] as const;

const CLIENT_SUMMARY_TOTALS = Object.fromEntries(
  SUMMARY_TOTAL_NAMES.map((name) => [
    name,
    Type.Optional(amount(`${name[0]!.toUpperCase()}${name.slice(1)}; checked against the engine when given`)),
  ]),
) as Record<(typeof SUMMARY_TOTAL_NAMES)[number], TOptional<TString>>;

export const DocumentRequest = Type.Object(
  {
    emisor: Type.String({
      pattern: '^\\d{9,12}$',
      description: 'Identification number of the registered issuer',
    }),
    numeroReferencia: Type.Integer({
      minimum: 1,
      maximum: 9999999999,
      description: 'Consecutive number of the document (last 10 digits of the consecutivo)',
    }),
    codigoActividad: Type.String({
      pattern: ACTIVITY_CODE_PATTERN,
      description: 'Issuer activity code, CIIU 4 form such as 6201.0',
    }),
    tipoDoc: Type.Unsafe<TipoDoc>({
      type: 'string',
      enum: [...TIPOS_DOC],
      description:
        '1 invoice (FacturaElectronica), 2 debit note, 3 credit note, 4 ticket, 8 purchase invoice (FacturaElectronicaCompra), 9 export invoice (FacturaElectronicaExportacion), 10 payment receipt (ReciboElectronicoPago)',
    }),
    folioType: Type.Unsafe<RequestFolioType>({
      type: 'string',
      enum: [...REQUEST_FOLIO_TYPES],
      description:
        'Echoed in the webhook event: INVOICE (any kind), or the kind’s own type: CREDIT_NOTE for 3, DEBIT_NOTE for 2, PAYMENT_RECEIPT for 10',
    }),
    fechaEmision: fechaHora(
      'Issue date and time; in Costa Rica time it must fall in 2000–2099 (the clave carries a two-digit year)',
    ),
    receptor: Type.Optional(
      Type.Union([Type.Literal(''), DocumentReceptor], {
        description:
          'Receiver; "" only for a ticket without receiver; absent only in a purchase invoice (tipoDoc 8), whose receptor is the issuer',
      }),
    ),
    proveedor: Type.Optional(DocumentProveedor),
    detalleServicio: Type.Array(DocumentLinea, { minItems: 1, maxItems: 1000 }),
    otrosCargos: Type.Optional(Type.Array(DocumentOtroCargo, { maxItems: 15 })),
    resumenFactura: Type.Object(
      {
        codigoTipoMoneda: Type.Object(
          {
            // Typed as string: the 168 codes are checked here, callers need not narrow to the union.
            codigoMoneda: Type.Unsafe<string>({
              type: 'string',
              enum: [...CODIGOS_MONEDA],
              description: 'ISO 4217 code the v4.4 XSD enumerates (CodigoMonedaType), e.g. CRC or USD',
            }),
            tipoCambio: Type.Optional(
              amount(
                'v4.4 TipoCambio to colones; default 1 for CRC (where it must be 1), required for other currencies',
              ),
            ),
          },
          { additionalProperties: false },
        ),
        mediosPago: Type.Array(DocumentMedioPago, {
          maxItems: 4,
          description: 'Payment means; required unless condicionVenta is 02, 08 or 10',
        }),
        totalOtrosCargos: Type.Optional(amount('Total of other charges')),
        ...CLIENT_SUMMARY_TOTALS,
        totalDesgloseImpuesto: Type.Optional(
          Type.Array(
            Type.Object(
              {
                codigo: code(CODIGOS_IMPUESTO, 'Tax code (Nota 8)'),
                codigoTarifa: Type.Optional(code(CODIGOS_TARIFA_IVA, 'CodigoTarifaIVA, for 01 and 07')),
                totalMontoImpuesto: amount('Net tax of that code and rate'),
              },
              { additionalProperties: false },
            ),
            {
              maxItems: 1000,
              description: 'Optional client breakdown per tax code (and IVA rate); checked when given',
            },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    condicionVenta: Type.Optional(
      code(
        CONDICIONES_VENTA,
        'v4.4 CondicionVenta (Nota 5); default 01 contado. 02 and 10 require plazoCredito; 99 requires condicionVentaOtros',
      ),
    ),
    condicionVentaOtros: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    plazoCredito: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 99999,
        description: 'Credit term in days; required for condicionVenta 02 and 10',
      }),
    ),
    terminal: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 99999,
        description: 'Terminal / point of sale in the consecutivo; default 1',
      }),
    ),
    sucursal: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 999,
        description: 'Branch in the consecutivo; default: the issuer’s registered branch',
      }),
    ),
    situacion: Type.Optional(
      Type.Unsafe<'1' | '2' | '3'>({
        type: 'string',
        enum: ['1', '2', '3'],
        description:
          "The clave's situación (position 42): 1 normal (default); 3 sin internet, for a document issued without a connection and sent later, the only situación whose fechaEmision may be earlier than Hacienda's reception (REFERENCE §2); 2 contingencia, for the electronic document that replaces a provisional one issued on paper during a contingency (reference it with informacionReferencia tipoDocIR 08, codigo 05)",
      }),
    ),
    codigoActividadReceptor: Type.Optional(
      Type.String({
        pattern: ACTIVITY_CODE_PATTERN,
        description: 'v4.4 CodigoActividadReceptor (optional; not in tickets)',
      }),
    ),
    informacionReferencia: Type.Optional(
      Type.Union(
        [
          DocumentInformacionReferencia,
          Type.Array(DocumentInformacionReferencia, { minItems: 1, maxItems: 10 }),
        ],
        { description: 'One reference or up to 10; required for tipoDoc 2, 3, 8 and 10' },
      ),
    ),
    copias: Type.Optional(
      Type.Array(EmailAddress, {
        minItems: 1,
        maxItems: 10,
        uniqueItems: true,
        description:
          "More addresses for the e-mail sent to the receptor's correoElectronico once Hacienda accepts (none is sent without it)",
      }),
    ),
  },
  {
    $id: 'https://schemas.cr-einvoice.dev/document-request.json',
    additionalProperties: false,
    description:
      'informacionReferencia is required for debit and credit notes, purchase invoices and payment receipts (tipoDoc 2, 3, 8, 10)',
  },
);
export type DocumentRequest = Static<typeof DocumentRequest>;
export type DocumentLinea = Static<typeof DocumentLinea>;
export type DocumentExoneracion = Static<typeof DocumentExoneracion>;
export type DocumentReceptor = Static<typeof DocumentReceptor>;
export type DocumentOtroCargo = Static<typeof DocumentOtroCargo>;
export type DocumentMedioPago = Static<typeof DocumentMedioPago>;
export type DocumentInformacionReferencia = Static<typeof DocumentInformacionReferencia>;
export type DocumentDescuento = Static<typeof DocumentDescuento>;
export type DocumentDatosImpuestoEspecifico = Static<typeof DocumentDatosImpuestoEspecifico>;
export type DocumentComponenteSurtido = Static<typeof DocumentComponenteSurtido>;
export type DocumentImpuestoSurtido = Static<typeof DocumentImpuestoSurtido>;
export type DocumentDescuentoSurtido = Static<typeof DocumentDescuentoSurtido>;

/** The line's taxes as a list, whichever form (array or single object) the client sent. */
export function lineImpuestos(line: Pick<DocumentLinea, 'impuesto'>): DocumentImpuesto[] {
  if (line.impuesto === undefined) return [];
  return Array.isArray(line.impuesto) ? line.impuesto : [line.impuesto];
}

/** The request path of the line's j-th tax as the client wrote it: `impuesto[j]`, or `impuesto` for one object. */
export function impuestoPath(line: Pick<DocumentLinea, 'impuesto'>, linePath: string, j: number): string {
  return Array.isArray(line.impuesto) ? `${linePath}.impuesto[${j}]` : `${linePath}.impuesto`;
}
export type DocumentProveedor = Static<typeof DocumentProveedor>;
export type DocumentUbicacion = Static<typeof DocumentUbicacion>;
