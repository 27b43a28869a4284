// The verdict pipeline: an ordered list of independent checks over a parsed comprobante, each returning
// findings. A check throws UnprocessableXmlError when the document cannot be processed at all (the
// document then ends in `error`, not `rechazado`). Checks backed by the document engine (signature) are
// added to the same list.
import { CODIGOS_IMPUESTO, CONDICIONES_VENTA, MEDIOS_PAGO } from '@cr/contracts';
import {
  Dec as D,
  TARIFA_BY_CODE,
  TOLERANCE,
  describeIdentificacionProblem,
  isServiceCabys,
} from '@cr/hacienda-xml';
import forge from 'node-forge';
import { identificationFromSubjectSerial, isIssuedByCa, type KeyMaterial } from '../certificate-authority';
import type { CabysCatalog } from '../cabys-catalog';
import { CODES, type Finding } from './findings';
import {
  type ParsedComprobante,
  type ParsedLine,
  ROOTS,
  UnprocessableXmlError,
  V44_PREFIX,
} from './parse-comprobante';
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
}

export interface VerdictCheck {
  name: string;
  run(ctx: VerdictContext): Promise<Finding[]> | Finding[];
}

type Dec = D;
// Hacienda tolerates systems that round to 2 decimals (REFERENCE §9.3); the engine's TOLERANCE is that margin.

function dec(value: string | undefined): Dec | undefined {
  if (value === undefined || value === '' || !/^-?\d+(\.\d+)?$/.test(value)) return undefined;
  return new D(value);
}

function close(a: Dec, b: Dec, tolerance: Dec = TOLERANCE): boolean {
  return a.minus(b).abs().lte(tolerance);
}

const sum = (values: Dec[]) => values.reduce((acc, v) => acc.plus(v), new D(0));

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
    let cert: forge.pki.Certificate;
    try {
      const der = forge.util.decode64(doc.signatureCertificate);
      cert = forge.pki.certificateFromAsn1(forge.asn1.fromDer(der));
    } catch {
      throw new UnprocessableXmlError('El certificado de la firma no se puede leer');
    }
    const findings: Finding[] = [];
    if (!trustAnyCa && !isIssuedByCa(ca, cert)) {
      findings.push({
        code: CODES.certificadoNoConfiable,
        text: 'El certificado del firmante no fue emitido por la autoridad certificadora del ambiente de pruebas',
      });
    }
    if (now < cert.validity.notBefore || now > cert.validity.notAfter) {
      findings.push({ code: CODES.certificadoVigencia, text: 'El certificado del firmante no está vigente' });
    }
    const serial = cert.subject.getField({ name: 'serialNumber' }) as { value?: string } | null;
    const signerId = serial?.value ? identificationFromSubjectSerial(String(serial.value)) : undefined;
    // The FEC is issued and signed by the buyer, who appears as its Receptor (REFERENCE §5.1).
    const expected = doc.rootName === 'FacturaElectronicaCompra' ? doc.receptor?.numero : doc.emisor.numero;
    if (!signerId || !expected || signerId.replace(/^0+/, '') !== expected.replace(/^0+/, '')) {
      findings.push({
        code: CODES.certificadoEmisor,
        text: `El certificado del firmante (${serial?.value ?? 'sin identificación'}) no corresponde al emisor ${expected ?? ''}`.trim(),
      });
    }
    return findings;
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

export const claveCheck: VerdictCheck = {
  name: 'clave',
  run({ doc }) {
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
    const emisorId = doc.rootName === 'FacturaElectronicaCompra' ? doc.receptor?.numero : doc.emisor.numero;
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
    return findings;
  },
};

// The code tables are the contract's and the engine's, so the sandbox judges by the same lists we emit.
const CONDICION_VENTA = new Set<string>(CONDICIONES_VENTA);
const MEDIO_PAGO = new Set<string>(MEDIOS_PAGO);
const IMPUESTO = new Set<string>(CODIGOS_IMPUESTO);
/** 10 (tarifa exenta) carries no rate of its own, so only its existence is checked. */
const TARIFA_UNCHECKED = new Set(['10']);

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
      for (const imp of line.impuestos) {
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
    return doc.lines.flatMap((line, i) =>
      line.cabys && !cabys.get(line.cabys)
        ? [
            {
              code: CODES.cabys,
              text: `Línea ${line.numeroLinea ?? i + 1}: el código CABYS ${line.cabys} no existe en el catálogo vigente`,
            },
          ]
        : [],
    );
  },
};

/** Data level (REFERENCE §9): only for emisores registered in the sandbox, so unregistered ones still work. */
export const registryCheck: VerdictCheck = {
  name: 'registry',
  async run({ doc, findTaxpayer }) {
    if (!doc.emisor.numero) return [];
    const taxpayer = await findTaxpayer(doc.emisor.numero);
    if (!taxpayer) return [];
    const findings: Finding[] = [];
    if (taxpayer.estado.toLowerCase() !== 'inscrito') {
      findings.push({ code: CODES.emisor, text: `El emisor no está inscrito (estado: ${taxpayer.estado})` });
    }
    const activity = doc.codigoActividadEmisor;
    if (activity && !taxpayer.actividades.some((a) => a.codigo === activity && (a.estado ?? 'A') === 'A')) {
      findings.push({
        code: CODES.actividad,
        text: `La actividad económica ${activity} no está registrada para el emisor`,
      });
    }
    return findings;
  },
};

function lineFindings(line: ParsedLine, index: number): { findings: Finding[]; impuestoNeto: Dec } {
  const n = line.numeroLinea ?? String(index + 1);
  const findings: Finding[] = [];
  const fail = (what: string, expected: Dec, actual: string | undefined) =>
    findings.push({
      code: CODES.calculoLinea,
      text: `Línea ${n}: ${what} es ${actual ?? '(vacío)'} y debe ser ${expected.toFixed(5)}`,
    });
  const cantidad = dec(line.cantidad);
  const precio = dec(line.precioUnitario);
  const montoTotal = dec(line.montoTotal);
  const subTotal = dec(line.subTotal);
  const descuentos = line.descuentos.map((d) => dec(d) ?? new D(0));
  if (cantidad && precio && montoTotal) {
    const expected = cantidad.times(precio);
    if (!close(expected, montoTotal)) fail('MontoTotal', expected, line.montoTotal);
  }
  if (montoTotal && subTotal) {
    const expected = montoTotal.minus(sum(descuentos));
    if (!close(expected, subTotal)) fail('SubTotal', expected, line.subTotal);
  }
  const base = dec(line.baseImponible) ?? subTotal;
  let impuestoNeto = new D(0);
  for (const imp of line.impuestos) {
    const monto = dec(imp.monto) ?? new D(0);
    const tarifa = dec(imp.tarifa);
    if ((imp.codigo === '01' || imp.codigo === '07') && tarifa && base) {
      const expected = tarifa.div(100).times(base);
      // Regalías and bonificaciones are taxed on MontoTotal (REFERENCE §9.1 item 5).
      const onMontoTotal = montoTotal ? tarifa.div(100).times(montoTotal) : undefined;
      if (!close(expected, monto) && !(onMontoTotal && close(onMontoTotal, monto)))
        fail('el Monto del impuesto', expected, imp.monto);
    }
    const exonerado = dec(imp.montoExoneracion) ?? new D(0);
    if (exonerado.gt(monto)) fail('MontoExoneracion', monto, imp.montoExoneracion);
    impuestoNeto = impuestoNeto.plus(monto).minus(exonerado);
  }
  impuestoNeto = impuestoNeto.minus(dec(line.impuestoAsumidoEmisorFabrica) ?? new D(0));
  const declaredNeto = dec(line.impuestoNeto);
  if (line.impuestos.length && declaredNeto && !close(impuestoNeto, declaredNeto))
    fail('ImpuestoNeto', impuestoNeto, line.impuestoNeto);
  const totalLinea = dec(line.montoTotalLinea);
  if (subTotal && totalLinea) {
    const expected = subTotal.plus(declaredNeto ?? impuestoNeto);
    if (!close(expected, totalLinea)) fail('MontoTotalLinea', expected, line.montoTotalLinea);
  }
  return { findings, impuestoNeto: declaredNeto ?? impuestoNeto };
}

/** The "Cálculo" identities of REFERENCE §9.1 and §9.2, on the document's own (rounded) line values. */
export const arithmeticCheck: VerdictCheck = {
  name: 'arithmetic',
  run({ doc }) {
    const findings: Finding[] = [];
    const netos: Dec[] = [];
    const montoServicios: Dec[] = [];
    const montoMercancias: Dec[] = [];
    doc.lines.forEach((line, i) => {
      const r = lineFindings(line, i);
      findings.push(...r.findings);
      netos.push(r.impuestoNeto);
      const mt = dec(line.montoTotal) ?? new D(0);
      if (line.cabys && isServiceCabys(line.cabys)) montoServicios.push(mt);
      else montoMercancias.push(mt);
    });
    const r = doc.resumen;
    const v = (name: string) => dec(r[name]) ?? new D(0);
    const check = (name: string, expected: Dec, code: number = CODES.calculoResumen) => {
      if (r[name] === undefined && expected.isZero()) return;
      if (!close(expected, v(name))) {
        findings.push({ code, text: `${name} es ${r[name] ?? '(vacío)'} y debe ser ${expected.toFixed(5)}` });
      }
    };
    if (!Object.keys(r).length) return findings;
    const serv = ['TotalServGravados', 'TotalServExentos', 'TotalServExonerado', 'TotalServNoSujeto'];
    const merc = [
      'TotalMercanciasGravadas',
      'TotalMercanciasExentas',
      'TotalMercExonerada',
      'TotalMercNoSujeta',
    ];
    if (doc.rootName !== 'ReciboElectronicoPago') {
      const servTotal = sum(serv.map(v));
      const mercTotal = sum(merc.map(v));
      if (!close(servTotal, sum(montoServicios))) {
        findings.push({
          code: CODES.servicios,
          text: `Los totales de servicios (${servTotal.toFixed(5)}) no corresponden a las líneas de servicio (${sum(montoServicios).toFixed(5)})`,
        });
      }
      if (!close(mercTotal, sum(montoMercancias))) {
        findings.push({
          code: CODES.mercancias,
          text: `Los totales de mercancías (${mercTotal.toFixed(5)}) no corresponden a las líneas de mercancías (${sum(montoMercancias).toFixed(5)})`,
        });
      }
      check('TotalGravado', v('TotalServGravados').plus(v('TotalMercanciasGravadas')));
      check('TotalExento', v('TotalServExentos').plus(v('TotalMercanciasExentas')));
      check('TotalExonerado', v('TotalServExonerado').plus(v('TotalMercExonerada')));
      check('TotalNoSujeto', v('TotalServNoSujeto').plus(v('TotalMercNoSujeta')));
      check(
        'TotalVenta',
        v('TotalGravado').plus(v('TotalExento')).plus(v('TotalExonerado')).plus(v('TotalNoSujeto')),
      );
    }
    check('TotalDescuentos', sum(doc.lines.flatMap((l) => l.descuentos.map((d) => dec(d) ?? new D(0)))));
    check('TotalVentaNeta', v('TotalVenta').minus(v('TotalDescuentos')));
    const totalImpuesto = sum(netos);
    check('TotalImpuesto', totalImpuesto);
    const taxed = doc.lines.some((l) => l.impuestos.some((i) => (dec(i.monto) ?? new D(0)).gt(0)));
    if (taxed && !doc.desglose.length) {
      findings.push({
        code: CODES.desglose,
        text: 'TotalDesgloseImpuesto es obligatorio cuando hay impuestos',
      });
    } else if (doc.desglose.length) {
      const desglose = sum(doc.desglose.map((d) => dec(d.totalMontoImpuesto) ?? new D(0)));
      if (!close(desglose, v('TotalImpuesto'))) {
        findings.push({
          code: CODES.desglose,
          text: `La suma de TotalDesgloseImpuesto (${desglose.toFixed(5)}) no coincide con TotalImpuesto`,
        });
      }
    }
    check('TotalOtrosCargos', sum(doc.otrosCargos.map((c) => dec(c) ?? new D(0))));
    check(
      'TotalComprobante',
      v('TotalVentaNeta').plus(v('TotalImpuesto')).plus(v('TotalOtrosCargos')).minus(v('TotalIVADevuelto')),
    );
    const pagos = doc.mediosPago.map((m) => dec(m.total)).filter((x): x is Dec => x !== undefined);
    if (doc.mediosPago.length > 1 && !close(sum(pagos), v('TotalComprobante'))) {
      findings.push({
        code: CODES.medioPago,
        text: `La suma de TotalMedioPago (${sum(pagos).toFixed(5)}) no coincide con TotalComprobante`,
      });
    }
    return findings;
  },
};
