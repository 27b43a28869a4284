// The verdict pipeline: an ordered list of independent checks over a parsed comprobante, each returning
// findings. A check throws UnprocessableXmlError when the document cannot be processed at all (the
// document then ends in `error`, not `rechazado`). Checks backed by the document engine (signature) are
// added to the same list.
import { CODIGOS_IMPUESTO, CONDICIONES_VENTA, MEDIOS_PAGO } from '@cr/contracts';
import {
  type ArithmeticKind,
  CONDICIONES_SIN_MEDIO_PAGO,
  Dec as D,
  ESPECIFICO_CODES,
  EXONERATION_NC_ONLY,
  KIND_RULES_BY_TIPO,
  type KindRules,
  TARIFA_BY_CODE,
  REFERENCE_NEEDS_CLAVE,
  TRANSITIONAL_TARIFAS,
  childText,
  describeIdentificacionProblem,
  oldestReferenceDate,
  parseIsoDateTime,
  verifyComprobanteArithmetic,
} from '@cr/hacienda-xml';
import type { Element } from '@xmldom/xmldom';
import type { KeyMaterial } from '../certificate-authority';
import type { CabysCatalog } from '../cabys-catalog';
import { CODES, type Finding } from './findings';
import {
  type ParsedComprobante,
  ROOTS,
  UnprocessableXmlError,
  V44_PREFIX,
  elementsAt,
} from './parse-comprobante';
import { readSignerCertificate, signerCertificateFindings } from './signer-certificate';
import type { XsdValidator } from './xsd-check';

export interface RegisteredTaxpayer {
  nombre: string;
  estado: string;
  actividades: Array<{ codigo: string; estado?: string }>;
}

export interface VerdictContext {
  doc: ParsedComprobante;
  now: Date;
  ca: KeyMaterial;
  trustAnyCa: boolean;
  cabys: CabysCatalog;
  xsd: XsdValidator;
  findTaxpayer(identificacion: string): Promise<RegisteredTaxpayer | undefined>;
  /**
   * A comprobante this sandbox accepted, by clave: its receptor, its total and what accepted credit notes
   * already credit against it. Undefined when the sandbox never accepted it.
   */
  findDocument(clave: string): Promise<ReferencedDocument | undefined>;
}

export interface ReferencedDocument {
  receptor?: string;
  totalComprobante: string;
  /** Σ TotalComprobante of the accepted credit notes that refer to it. */
  credited: Dec;
}

export interface VerdictCheck {
  name: string;
  run(ctx: VerdictContext): Promise<Finding[]> | Finding[];
}

type Dec = D;
function dec(value: string | undefined): Dec | undefined {
  if (value === undefined || value === '' || !/^-?\d+(\.\d+)?$/.test(value)) return undefined;
  return new D(value);
}

export const structureCheck: VerdictCheck = {
  name: 'structure',
  run({ doc }) {
    const root = ROOTS[doc.rootName];
    if (!root || doc.rootName === 'MensajeReceptor') {
      throw new UnprocessableXmlError(`El elemento raíz ${doc.rootName} no es un comprobante electrónico`);
    }
    if (doc.namespace !== V44_PREFIX + root.ns) {
      throw new UnprocessableXmlError(
        `El espacio de nombres ${doc.namespace || '(ninguno)'} no es el de la versión 4.4`,
      );
    }
    if (!doc.hasSignature) throw new UnprocessableXmlError('El comprobante no está firmado');
    return [];
  },
};

export const xsdCheck: VerdictCheck = {
  name: 'xsd',
  async run({ doc, xsd }) {
    const root = ROOTS[doc.rootName];
    if (!root) return [];
    return (await xsd.validate(doc.xml, root.xsd)) ?? [];
  },
};

export const certificateCheck: VerdictCheck = {
  name: 'certificate',
  run({ doc, ca, trustAnyCa, now }) {
    if (!doc.signatureCertificate)
      throw new UnprocessableXmlError('La firma no contiene el certificado X509');
    const cert = readSignerCertificate(ca, doc.signatureCertificate);
    if (!cert) throw new UnprocessableXmlError('El certificado de la firma no se puede leer');
    // The FEC is issued and signed by the buyer, who appears as its Receptor (REFERENCE §5.1).
    const { numero: expected, rol } = signingTaxpayer(doc);
    return signerCertificateFindings(cert, { expected, rol, now, trustAnyCa });
  },
};

/** The calendar date (DDMMYY) of FechaEmision in Costa Rica (UTC−6); a value without offset is local. */
export function claveDateOf(fechaEmision: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(
    fechaEmision,
  );
  if (!m) return undefined;
  const [, y, mo, d, , , , , tz] = m as unknown as string[];
  if (!tz) return `${d}${mo}${String(y).slice(2)}`;
  const instant = new Date(fechaEmision);
  if (Number.isNaN(instant.getTime())) return undefined;
  const cr = new Date(instant.getTime() - 6 * 3600_000);
  const dd = String(cr.getUTCDate()).padStart(2, '0');
  const mm = String(cr.getUTCMonth() + 1).padStart(2, '0');
  return `${dd}${mm}${String(cr.getUTCFullYear()).slice(2)}`;
}

/** A FechaEmision this far past the sandbox's clock is refused: clocks drift, documents are not post-dated. */
export const FECHA_EMISION_SKEW_MS = 5 * 60_000;

export const claveCheck: VerdictCheck = {
  name: 'clave',
  run({ doc, now }) {
    const findings: Finding[] = [];
    const clave = doc.clave ?? '';
    const consecutivo = doc.numeroConsecutivo ?? '';
    if (!/^\d{50}$/.test(clave)) return [{ code: CODES.clave, text: 'La clave no tiene 50 dígitos' }];
    if (!clave.startsWith('506'))
      findings.push({ code: CODES.clave, text: 'La clave no inicia con el código de país 506' });
    if (!/^\d{20}$/.test(consecutivo)) {
      findings.push({ code: CODES.consecutivo, text: 'El número consecutivo no tiene 20 dígitos' });
    } else {
      if (clave.slice(21, 41) !== consecutivo) {
        findings.push({
          code: CODES.clave,
          text: 'El número consecutivo de la clave no coincide con NumeroConsecutivo',
        });
      }
      const root = ROOTS[doc.rootName];
      if (root && consecutivo.slice(8, 10) !== root.tipo) {
        findings.push({
          code: CODES.consecutivo,
          text: `El tipo de documento ${consecutivo.slice(8, 10)} del consecutivo no corresponde a ${doc.rootName}`,
        });
      }
      if (/^0+$/.test(consecutivo.slice(10))) {
        findings.push({ code: CODES.consecutivo, text: 'El número del consecutivo debe iniciar en 1' });
      }
    }
    if (!/^[123]$/.test(clave.charAt(41))) {
      findings.push({
        code: CODES.clave,
        text: `La situación ${clave.charAt(41)} de la clave no es 1, 2 ni 3`,
      });
    }
    const emisorId = signingTaxpayer(doc).numero;
    if (emisorId && /^\d+$/.test(emisorId) && clave.slice(9, 21) !== emisorId.padStart(12, '0')) {
      findings.push({
        code: CODES.clave,
        text: 'La identificación de la clave no coincide con la del emisor',
      });
    }
    const date = doc.fechaEmision ? claveDateOf(doc.fechaEmision) : undefined;
    if (!date) findings.push({ code: CODES.clave, text: 'FechaEmision no tiene un formato válido' });
    else if (clave.slice(3, 9) !== date) {
      findings.push({
        code: CODES.clave,
        text: `La fecha de la clave (${clave.slice(3, 9)}) no coincide con FechaEmision (${doc.fechaEmision})`,
      });
    }
    // "FechaEmision outside the allowed window" (REFERENCE §9.4): a document is not issued after it arrives.
    const instant = doc.fechaEmision ? parseIsoDateTime(doc.fechaEmision) : undefined;
    if (instant && instant.getTime() > now.getTime() + FECHA_EMISION_SKEW_MS) {
      findings.push({
        code: CODES.clave,
        text: `La FechaEmision (${doc.fechaEmision}) es posterior a la recepción del comprobante`,
      });
    }
    return findings;
  },
};

// The code tables are the contract's and the engine's, so the sandbox judges by the same lists we emit.
const CONDICION_VENTA = new Set<string>(CONDICIONES_VENTA);
const MEDIO_PAGO = new Set<string>(MEDIOS_PAGO);
const IMPUESTO = new Set<string>(CODIGOS_IMPUESTO);
/** 10 (tarifa exenta) carries no rate of its own, so only its existence is checked. */
const TARIFA_UNCHECKED = new Set(['10']);

/** The rules of the document's kind: the engine's KIND_RULES row of its consecutivo type. */
function kindRulesOf(doc: ParsedComprobante): KindRules | undefined {
  const tipo = ROOTS[doc.rootName]?.tipo;
  return tipo === undefined ? undefined : KIND_RULES_BY_TIPO[tipo];
}

/** Each LineaDetalle with the name findings give it. */
function linesOf(doc: ParsedComprobante): Array<{ at: string; line: Element }> {
  return elementsAt(doc.root, 'DetalleServicio/LineaDetalle').map((line, i) => ({
    at: `Línea ${childText(line, 'NumeroLinea') ?? i + 1}`,
    line,
  }));
}

/**
 * The codes whose 99 ("Otros") requires a text describing it, the "…OTRO text missing for code 99" of
 * REFERENCE §9.4 (§7.3–§7.7, §7.10; the surtido's from their XSD annotations), and NaturalezaDescuento,
 * "required with 99" (§7.7): [in each line or in the document, path from there, code, required element].
 */
const OTROS_TEXTS: ReadonlyArray<
  readonly [scope: 'line' | 'document', path: string, code: string, text: string]
> = [
  ['line', 'Impuesto', 'Codigo', 'CodigoImpuestoOTRO'],
  ['line', 'Impuesto/Exoneracion', 'TipoDocumentoEX1', 'TipoDocumentoOTRO'],
  ['line', 'Impuesto/Exoneracion', 'NombreInstitucion', 'NombreInstitucionOtros'],
  ['line', 'Descuento', 'CodigoDescuento', 'CodigoDescuentoOTRO'],
  ['line', 'Descuento', 'CodigoDescuento', 'NaturalezaDescuento'],
  [
    'line',
    'DetalleSurtido/LineaDetalleSurtido/ImpuestoSurtido',
    'CodigoImpuestoSurtido',
    'CodigoImpuestoOTROSurtido',
  ],
  [
    'line',
    'DetalleSurtido/LineaDetalleSurtido/DescuentoSurtido',
    'CodigoDescuentoSurtido',
    'DescuentoSurtidoOtros',
  ],
  ['document', 'InformacionReferencia', 'TipoDocIR', 'TipoDocRefOTRO'],
  ['document', 'InformacionReferencia', 'Codigo', 'CodigoReferenciaOTRO'],
  ['document', 'OtrosCargos', 'TipoDocumentoOC', 'TipoDocumentoOTROS'],
  ['document', 'ResumenFactura/MedioPago', 'TipoMedioPago', 'MedioPagoOtros'],
];

function missingOtrosTexts(doc: ParsedComprobante): Finding[] {
  const lines = linesOf(doc);
  const findings: Finding[] = [];
  for (const [scope, path, code, required] of OTROS_TEXTS) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    const found =
      scope === 'line'
        ? lines.flatMap(({ at, line }) => elementsAt(line, path).map((el) => ({ at, el })))
        : elementsAt(doc.root, path).map((el, i) => ({ at: `${name} ${i + 1}`, el }));
    for (const { at, el } of found) {
      if (childText(el, code) === '99' && !childText(el, required))
        findings.push({ code: CODES.condicional, text: `${at}: ${required} es obligatorio con ${code} 99` });
    }
  }
  return findings;
}

/**
 * DatosImpuestoEspecifico "es de condición obligatoria, cuando se utilicen los códigos de impuesto 03, 04, 05,
 * 06" (XSD annotation): their Monto is computed from it (REFERENCE §9.1 item 5). Only where the kind's
 * Impuesto has the element (FE, TE, NC, ND: KIND_RULES lines 'full'), and not on a surtido line, whose data
 * are its components'.
 */
function missingDatosEspecificos(doc: ParsedComprobante): Finding[] {
  if (kindRulesOf(doc)?.lines !== 'full') return [];
  return linesOf(doc)
    .filter(({ line }) => elementsAt(line, 'DetalleSurtido').length === 0)
    .flatMap(({ at, line }) =>
      elementsAt(line, 'Impuesto')
        .filter((imp) => elementsAt(imp, 'DatosImpuestoEspecifico').length === 0)
        .map((imp) => childText(imp, 'Codigo') ?? '')
        .filter((codigo) => ESPECIFICO_CODES.has(codigo))
        .map((codigo) => ({
          code: CODES.condicional,
          text: `${at}: DatosImpuestoEspecifico es obligatorio con el código de impuesto ${codigo}`,
        })),
    );
}

/**
 * The fields a code makes required (REFERENCE §7.1–§7.10, §9.4): PlazoCredito (> 0) for a sale on credit,
 * the `…OTRO` text of every code 99, MedioPago unless on credit, DatosImpuestoEspecifico for the specific
 * taxes, a reference of TipoDocIR 16 for a foreign supplier, TipoCambio 1 for colones.
 */
export const conditionalFieldsCheck: VerdictCheck = {
  name: 'conditional fields',
  run({ doc }) {
    const findings: Finding[] = [];
    const credit = doc.condicionVenta === '02' || doc.condicionVenta === '10';
    if (credit && !(Number(doc.plazoCredito ?? '0') > 0)) {
      findings.push({
        code: CODES.condicional,
        text: `PlazoCredito es obligatorio y mayor que 0 con CondicionVenta ${doc.condicionVenta}`,
      });
    }
    if (doc.condicionVenta === '99' && !doc.condicionVentaOtros) {
      findings.push({
        code: CODES.condicional,
        text: 'CondicionVentaOtros es obligatorio con CondicionVenta 99',
      });
    }
    findings.push(...missingOtrosTexts(doc));
    if (
      doc.condicionVenta &&
      !CONDICIONES_SIN_MEDIO_PAGO.has(doc.condicionVenta) &&
      doc.mediosPago.length === 0
    ) {
      findings.push({
        code: CODES.condicional,
        text: `MedioPago es obligatorio con CondicionVenta ${doc.condicionVenta}`,
      });
    }
    findings.push(...missingDatosEspecificos(doc));
    // A foreign emisor (05) is "allowed only in FEC, together with reference type 16" (REFERENCE §7.1);
    // outside an FEC, kindCodesCheck refuses it.
    const fec = doc.rootName === 'FacturaElectronicaCompra';
    if (fec && doc.emisor.tipo === '05' && !doc.informacionReferencia.some((r) => r.tipoDoc === '16')) {
      findings.push({
        code: CODES.condicional,
        text: 'Un emisor de tipo 05 (extranjero no domiciliado) requiere una InformacionReferencia de TipoDocIR 16',
      });
    }
    const tipoCambio = dec(doc.tipoCambio);
    if (doc.codigoMoneda === 'CRC' && tipoCambio && !tipoCambio.eq(1)) {
      findings.push({
        code: CODES.condicional,
        text: `TipoCambio debe ser 1 para CRC, no ${doc.tipoCambio}`,
      });
    }
    return findings;
  },
};

/**
 * The kinds whose Receptor may be foreign (05): REFERENCE §7.1's FEE, TE, NC and ND (an FE only with
 * CondicionVenta 12), and the REP, on which it is silent and which the engine allows (KIND_RULES, ADR 0010).
 * The FEC's Receptor is the buyer who issues it.
 */
const RECEPTOR_EXTRANJERO = new Set([
  'FacturaElectronicaExportacion',
  'TiqueteElectronico',
  'NotaCreditoElectronica',
  'NotaDebitoElectronica',
  'ReciboElectronicoPago',
]);

/** Who may be a foreign (05) or no-contribuyente (06) party (REFERENCE §7.1). */
function partyTypeFindings(doc: ParsedComprobante, rules: KindRules): Finding[] {
  const texts: string[] = [];
  const fec = rules.root === 'FacturaElectronicaCompra';
  for (const [role, party] of [
    ['emisor', doc.emisor],
    ['receptor', doc.receptor],
  ] as const) {
    if (party?.tipo === '06' && !(fec && doc.condicionVenta === '13'))
      texts.push(
        `El ${role} de tipo 06 (no contribuyente) solo se permite en una factura electrónica de compra con CondicionVenta 13`,
      );
  }
  if (doc.emisor.tipo === '05' && !fec)
    texts.push(
      'El emisor de tipo 05 (extranjero no domiciliado) solo se permite en una factura electrónica de compra',
    );
  const fe = rules.root === 'FacturaElectronica';
  if (
    doc.receptor?.tipo === '05' &&
    !RECEPTOR_EXTRANJERO.has(rules.root) &&
    !(fe && doc.condicionVenta === '12')
  )
    texts.push(
      fe
        ? 'El receptor de tipo 05 (extranjero no domiciliado) solo se permite en una Factura Electrónica con CondicionVenta 12'
        : `El receptor de tipo 05 (extranjero no domiciliado) no se permite en ${rules.title}`,
    );
  return texts.map((text) => ({ code: CODES.codigo, text: `${text} (Nota 4)` }));
}

/**
 * The codes only some kinds may carry (REFERENCE §7.1–§7.5, §7.10): each kind's CondicionVenta (the engine's
 * KIND_RULES, with the NC/ND taking every code their XSD lists: they adjust any sale), the foreign and
 * no-contribuyente parties, the transitional IVA rates and exoneration types of NC/ND, reference Codigo 12
 * (NC only) and TipoDocIR 16 (FEC only).
 */
export const kindCodesCheck: VerdictCheck = {
  name: 'kind codes',
  run({ doc }) {
    const rules = kindRulesOf(doc);
    if (!rules) return [];
    const findings = partyTypeFindings(doc, rules);
    const cv = doc.condicionVenta;
    if (cv && CONDICION_VENTA.has(cv) && !rules.condiciones.includes(cv))
      findings.push({
        code: CODES.codigo,
        text: `CondicionVenta ${cv} no se permite en ${rules.title} (Nota 5)`,
      });
    doc.lines.forEach((line, i) => {
      const at = `Línea ${line.numeroLinea ?? i + 1}`;
      const taxes = [...line.impuestos, ...(line.surtido ?? []).flatMap((c) => c.impuestos)];
      for (const code of new Set(taxes.map((t) => t.codigoTarifaIVA))) {
        if (code && TRANSITIONAL_TARIFAS.has(code) && !rules.tarifasTransitorias)
          findings.push({
            code: CODES.codigo,
            text: `${at}: CodigoTarifaIVA ${code} es una tarifa transitoria, solo para notas de crédito y de débito (Nota 8.1)`,
          });
      }
      // The line's own taxes: a surtido's components carry no exoneration.
      for (const { tipoDocumentoEX1: tipo } of line.impuestos) {
        if (tipo !== undefined && EXONERATION_NC_ONLY.has(tipo) && rules.exoneracion !== 'all')
          findings.push({
            code: CODES.codigo,
            text: `${at}: TipoDocumentoEX1 ${tipo} es solo para notas de crédito y de débito (Nota 10.1)`,
          });
      }
    });
    for (const [i, ref] of doc.informacionReferencia.entries()) {
      const at = `InformacionReferencia ${i + 1}`;
      if (ref.codigo === '12' && rules.root !== 'NotaCreditoElectronica')
        findings.push({
          code: CODES.codigo,
          text: `${at}: Codigo 12 (crédito por exoneración posterior) es solo para una nota de crédito (Nota 9)`,
        });
      if (ref.tipoDoc === '16' && rules.root !== 'FacturaElectronicaCompra')
        findings.push({
          code: CODES.codigo,
          text: `${at}: TipoDocIR 16 (proveedor no domiciliado) es solo para una factura electrónica de compra (Nota 10)`,
        });
    }
    return findings;
  },
};

/**
 * InformacionReferencia (REFERENCE §7.10): a Numero that must be a clave is one, FechaEmisionIR is at most
 * ten years old and not after the document. A credit or debit note against a document this sandbox accepted
 * keeps its receptor, and credit notes credit no more than its total.
 */
export const referencesCheck: VerdictCheck = {
  name: 'references',
  async run({ doc, now, findDocument }) {
    const findings: Finding[] = [];
    const tenYears = oldestReferenceDate(now);
    const issued = doc.fechaEmision ? parseIsoDateTime(doc.fechaEmision) : undefined;
    for (const [i, ref] of doc.informacionReferencia.entries()) {
      const at = `InformacionReferencia ${i + 1}`;
      if (ref.tipoDoc && REFERENCE_NEEDS_CLAVE.has(ref.tipoDoc) && !/^\d{50}$/.test(ref.numero ?? '')) {
        findings.push({
          code: CODES.referencia,
          text: `${at}: Numero debe ser la clave de 50 dígitos del documento ${ref.tipoDoc}`,
        });
      }
      const fecha = ref.fechaEmision ? parseIsoDateTime(ref.fechaEmision) : undefined;
      if (!fecha)
        findings.push({ code: CODES.referencia, text: `${at}: FechaEmisionIR no tiene un formato válido` });
      else if (fecha < tenYears)
        findings.push({ code: CODES.referencia, text: `${at}: FechaEmisionIR tiene más de 10 años` });
      else if (issued && fecha > issued)
        findings.push({ code: CODES.referencia, text: `${at}: FechaEmisionIR es posterior a FechaEmision` });
    }
    const credit = doc.rootName === 'NotaCreditoElectronica';
    if (!credit && doc.rootName !== 'NotaDebitoElectronica') return findings;
    for (const ref of doc.informacionReferencia) {
      if (!ref.numero || !/^\d{50}$/.test(ref.numero)) continue;
      const original = await findDocument(ref.numero);
      if (!original) continue;
      if (
        original.receptor !== undefined &&
        doc.receptor?.numero !== undefined &&
        original.receptor !== doc.receptor.numero
      ) {
        findings.push({
          code: CODES.referencia,
          text: `La nota tiene un receptor distinto del documento ${ref.numero}`,
        });
      }
      if (!credit) continue;
      const total = dec(doc.amounts.resumen.TotalComprobante);
      const originalTotal = dec(original.totalComprobante);
      if (total && originalTotal && total.plus(original.credited).gt(originalTotal)) {
        findings.push({
          code: CODES.referencia,
          text: `Las notas de crédito al documento ${ref.numero} exceden su total (${original.totalComprobante})`,
        });
      }
    }
    return findings;
  },
};

export const codesCheck: VerdictCheck = {
  name: 'codes',
  run({ doc }) {
    const findings: Finding[] = [];
    for (const [role, party] of [
      ['emisor', doc.emisor],
      ['receptor', doc.receptor],
    ] as const) {
      if (!party?.tipo) continue;
      const problem = describeIdentificacionProblem(party.tipo, party.numero ?? '');
      if (problem?.startsWith('tipo '))
        findings.push({
          code: CODES.codigo,
          text: `El tipo de identificación del ${role} (${party.tipo}) no existe (Nota 4)`,
        });
      else if (problem) {
        findings.push({
          code: CODES.emisor,
          text: `La identificación del ${role} no tiene el formato del tipo ${party.tipo}`,
        });
      }
    }
    if (doc.condicionVenta && !CONDICION_VENTA.has(doc.condicionVenta)) {
      findings.push({ code: CODES.codigo, text: `CondicionVenta ${doc.condicionVenta} no existe (Nota 5)` });
    }
    for (const m of doc.mediosPago) {
      if (m.tipo && !MEDIO_PAGO.has(m.tipo))
        findings.push({ code: CODES.codigo, text: `TipoMedioPago ${m.tipo} no existe (Nota 6)` });
    }
    doc.lines.forEach((line, i) => {
      const n = line.numeroLinea ?? String(i + 1);
      // A surtido line's Impuesto carries no rate: the rates are its components' (ADR 0024).
      const surtido = line.surtido !== undefined && line.surtido.length > 0;
      for (const imp of surtido ? line.surtido!.flatMap((c) => c.impuestos) : line.impuestos) {
        if (imp.codigo && !IMPUESTO.has(imp.codigo)) {
          findings.push({
            code: CODES.codigo,
            text: `Línea ${n}: el código de impuesto ${imp.codigo} no existe (Nota 8)`,
          });
        }
        if (imp.codigo !== '01' && imp.codigo !== '07') continue;
        const code = imp.codigoTarifaIVA;
        if (!code || !(code in TARIFA_BY_CODE)) {
          findings.push({
            code: CODES.codigo,
            text: `Línea ${n}: CodigoTarifaIVA ${code ?? '(vacío)'} no existe (Nota 8.1)`,
          });
          continue;
        }
        const expected = TARIFA_UNCHECKED.has(code) ? undefined : TARIFA_BY_CODE[code];
        const tarifa = dec(imp.tarifa);
        if (expected !== undefined && !tarifa?.eq(expected)) {
          findings.push({
            code: CODES.tarifa,
            text: `Línea ${n}: la tarifa ${imp.tarifa ?? '(vacía)'} no corresponde al CodigoTarifaIVA ${code} (${expected}%)`,
          });
        }
      }
    });
    return findings;
  },
};

export const cabysCheck: VerdictCheck = {
  name: 'cabys',
  run({ doc, cabys }) {
    if (!cabys.complete) return [];
    // A surtido's components are checked too (CodigoCABYSSurtido).
    return doc.lines.flatMap((line, i) =>
      [line.cabys, ...(line.surtido ?? []).map((c) => c.cabys)]
        .filter((code): code is string => code !== undefined && !cabys.get(code))
        .map((code) => ({
          code: CODES.cabys,
          text: `Línea ${line.numeroLinea ?? i + 1}: el código CABYS ${code} no existe en el catálogo vigente`,
        })),
    );
  },
};

/** The taxpayer who issues and signs the document, its activity, and how the verdict names it: the Emisor,
 *  except in an FEC, which the buyer issues and signs as its Receptor (REFERENCE §5.1) with its own activity in
 *  CodigoActividadReceptor; the FEC's Emisor is the supplier, often not inscribed at all (that is why the FEC
 *  exists), so the registry judges the Receptor there. */
export function signingTaxpayer(doc: ParsedComprobante): {
  numero?: string;
  actividad?: string;
  rol: string;
} {
  return doc.rootName === 'FacturaElectronicaCompra'
    ? {
        numero: doc.receptor?.numero,
        actividad: doc.codigoActividadReceptor,
        rol: 'receptor que emite y firma la factura de compra',
      }
    : { numero: doc.emisor.numero, actividad: doc.codigoActividadEmisor, rol: 'emisor' };
}

/** Data level (REFERENCE §9): only for taxpayers registered in the sandbox, so unregistered ones still work. */
export const registryCheck: VerdictCheck = {
  name: 'registry',
  async run({ doc, findTaxpayer }) {
    const { numero, actividad, rol } = signingTaxpayer(doc);
    if (!numero) return [];
    const taxpayer = await findTaxpayer(numero);
    if (!taxpayer) return [];
    const findings: Finding[] = [];
    if (taxpayer.estado.toLowerCase() !== 'inscrito') {
      findings.push({
        code: CODES.emisor,
        text: `El ${rol} (${numero}) no está inscrito (estado: ${taxpayer.estado})`,
      });
    }
    if (actividad && !taxpayer.actividades.some((a) => a.codigo === actividad && (a.estado ?? 'A') === 'A')) {
      findings.push({
        code: CODES.actividad,
        text: `La actividad económica ${actividad} no está registrada para el ${rol} (${numero})`,
      });
    }
    return findings;
  },
};

const ARITHMETIC_CODES: Record<ArithmeticKind, number> = {
  linea: CODES.calculoLinea,
  resumen: CODES.calculoResumen,
  servicios: CODES.servicios,
  mercancias: CODES.mercancias,
  desglose: CODES.desglose,
  medioPago: CODES.medioPago,
};

/** The "Cálculo" identities of REFERENCE §9.1 and §9.2 for every tax of Nota 8, on the document's own
 *  (rounded) values: the engine's verifyComprobanteArithmetic, so the sandbox judges by the rules we emit. */
export const arithmeticCheck: VerdictCheck = {
  name: 'arithmetic',
  run({ doc }) {
    return verifyComprobanteArithmetic(doc.amounts).map((m) => ({
      code: ARITHMETIC_CODES[m.kind],
      text: `${m.path} es ${m.found} y debe ser ${m.expected}`,
    }));
  },
};
