// Turns a client document into a checked, computed model: schema validation (contracts), the cross-field
// rules of issue 4, the authoritative arithmetic and the comparison of the client's amounts. Returns every
// issue instead of throwing.
import {
  type DocumentInformacionReferencia,
  DocumentRequest,
  SUMMARY_TOTAL_NAMES,
  validate,
} from '@cr/contracts';
import { checkAmountLimits } from './amount-limits';
import { type DesgloseEntry, type SummaryAmounts, computeSummary, desgloseKey } from './arithmetic';
import { formatCostaRicaDateTime, parseIsoDateTime } from './cr-time';
import type { DocumentIssue } from './errors';
import { describeClaveDateProblem, describeIdentificacionProblem } from './identifiers';
import type { Issuer } from './issuer';
import { checkKindRules, referencesOf } from './kind-check';
import {
  CONDICIONES_SIN_MEDIO_PAGO,
  type KindRules,
  type TipoDocumento,
  articled,
  kindRulesOf,
} from './kind-rules';
import { type CheckedLine, checkLine } from './line-check';
import { Dec, formatAmount, parseDecimal, sum, withinTolerance } from './money';

export type { CheckedLine, DesgloseEntry };
export { TARIFA_BY_CODE } from './line-check';

const ONE = new Dec(1);

export type { TipoDocumento };

export interface CheckedDocument {
  document: DocumentRequest;
  tipo: TipoDocumento;
  /** The kind's rules and XML shape. */
  rules: KindRules;
  /** informacionReferencia as a list (a single object is one entry). */
  referencias: DocumentInformacionReferencia[];
  fechaEmision: Date;
  condicionVenta: string;
  codigoMoneda: string;
  tipoCambio: Dec;
  lines: CheckedLine[];
  otrosCargos: Dec[];
  mediosPago: { tipo: string; otros?: string; total?: Dec }[];
  summary: SummaryAmounts;
}

export type CheckResult = { ok: true; value: CheckedDocument } | { ok: false; issues: DocumentIssue[] };

function medioCode(value: string | number): string {
  return typeof value === 'number' ? String(value).padStart(2, '0') : value;
}

/**
 * TipoDocumentoOTROS of a charge of type 99 (5–100 characters, required by v4.4): the client's, or else its
 * detalle, which the service's contract has describe the charge ("99 means other") and which is then the
 * same text.
 */
export function tipoDocumentoOtrosOf(c: {
  tipoDocumentoOtros?: string | undefined;
  detalle: string;
}): string | undefined {
  if (c.tipoDocumentoOtros !== undefined) return c.tipoDocumentoOtros;
  const detalle = c.detalle.trim();
  return detalle.length >= 5 && detalle.length <= 100 ? detalle : undefined;
}

/** How far ahead of the service's clock a FechaEmision may be: clients' clocks drift, documents don't. */
export const FECHA_EMISION_MAX_AHEAD_MS = 5 * 60_000;

/** A document is issued when it is signed: Hacienda refuses a FechaEmision later than its own reception. */
function describeFutureProblem(fechaEmision: Date, now: Date): string | undefined {
  const ahead = fechaEmision.getTime() - now.getTime();
  if (ahead <= FECHA_EMISION_MAX_AHEAD_MS) return undefined;
  return `is ${Math.ceil(ahead / 60_000)} minutes ahead of the current time (${formatCostaRicaDateTime(now)}); a date-time without an offset is read as Costa Rica time (UTC−06:00)`;
}

/** Validates and computes a document; `issuer` (when given) must be the document's emisor. */
export function checkDocument(input: unknown, options: { issuer?: Issuer; now?: Date } = {}): CheckResult {
  const schema = validate(DocumentRequest, input);
  if (!schema.ok) return { ok: false, issues: schema.issues };
  const doc = schema.value;
  const issues: DocumentIssue[] = [];
  const add = (path: string, reason: string, expected?: string) =>
    issues.push(expected === undefined ? { path, reason } : { path, reason, expected });

  const rules = kindRulesOf(doc.tipoDoc);
  const tipo = rules.tipo;
  const now = options.now ?? new Date();
  let fechaEmision = parseIsoDateTime(doc.fechaEmision);
  if (!fechaEmision) add('fechaEmision', 'is not a valid date-time');
  else {
    const problem = describeClaveDateProblem(fechaEmision) ?? describeFutureProblem(fechaEmision, now);
    // An issue here, with the others, rather than Clave.generate's throw (its last guard); the date is then
    // unusable, so the reference rules do not also compare against it.
    if (problem) {
      add('fechaEmision', problem);
      fechaEmision = undefined;
    }
  }

  if (options.issuer && options.issuer.numeroIdentificacion !== doc.emisor) {
    add('emisor', 'does not match the issuer the document is signed for');
  }

  const condicionVenta = doc.condicionVenta ?? rules.condicionPorDefecto;
  if ((condicionVenta === '02' || condicionVenta === '10') && doc.plazoCredito === undefined) {
    add('plazoCredito', 'is required when condicionVenta is 02 or 10');
  }
  if (condicionVenta === '99' && !doc.condicionVentaOtros)
    add('condicionVentaOtros', 'is required when condicionVenta is 99');

  // Currency.
  const codigoMoneda = doc.resumenFactura.codigoTipoMoneda.codigoMoneda;
  const tipoCambioRaw = doc.resumenFactura.codigoTipoMoneda.tipoCambio;
  let tipoCambio = ONE;
  if (codigoMoneda === 'CRC') {
    if (tipoCambioRaw !== undefined && !new Dec(tipoCambioRaw).eq(ONE)) {
      add('resumenFactura.codigoTipoMoneda.tipoCambio', 'must be 1 for CRC');
    }
  } else if (tipoCambioRaw === undefined) {
    add('resumenFactura.codigoTipoMoneda.tipoCambio', `is required for ${codigoMoneda}`);
  } else if (new Dec(tipoCambioRaw).lte(0)) {
    add('resumenFactura.codigoTipoMoneda.tipoCambio', 'must be greater than 0');
  } else {
    tipoCambio = new Dec(tipoCambioRaw);
  }

  // Lines.
  const lineContext = { rules, fechaEmision, add, compare };
  const lines = doc.detalleServicio.map((line, i) => checkLine(line, i, lineContext));
  // FEC, FEE and REP lines have no ImpuestoAsumidoEmisorFabrica: a tax the issuer absorbs (regalías) has
  // no place in them.
  if (rules.lines !== 'full')
    lines.forEach((l, i) => {
      if (l.impuestoAsumidoEmisorFabrica.gt(0))
        add(
          `detalleServicio[${i}].descuentos`,
          `a tax absorbed by the issuer (regalía) is not possible in ${articled(rules.name)}`,
        );
    });

  // Other charges.
  const otrosCargos: Dec[] = [];
  (doc.otrosCargos ?? []).forEach((c, i) => {
    const p = `otrosCargos[${i}]`;
    if (c.tipoDocumento === '99' && tipoDocumentoOtrosOf(c) === undefined)
      add(
        `${p}.tipoDocumentoOtros`,
        'is required when tipoDocumento is 99 and detalle cannot stand for it (5 to 100 characters)',
      );
    if (c.tipoDocumento === '04') {
      if (!c.identificacionTercero) add(`${p}.identificacionTercero`, 'is required when tipoDocumento is 04');
      if (!c.nombreTercero) add(`${p}.nombreTercero`, 'is required when tipoDocumento is 04');
    }
    if (c.identificacionTercero) {
      const problem = describeIdentificacionProblem(
        c.identificacionTercero.tipo,
        c.identificacionTercero.numero,
      );
      if (problem) add(`${p}.identificacionTercero.numero`, problem.replace(/^numero /, ''));
    }
    otrosCargos.push(new Dec(c.montoCargo));
  });

  // IVA on health services paid by card is returned to the buyer: only when every payment means is a
  // card (02), in the kinds whose summary has TotalIVADevuelto (FE, TE, NC, ND; ADR 0024).
  const pagos = doc.resumenFactura.mediosPago;
  const ivaDevuelto =
    rules.resumen === 'full' && pagos.length > 0 && pagos.every((m) => medioCode(m.tipoMedioPago) === '02');
  const summary = computeSummary(lines, otrosCargos, { ivaDevuelto });
  checkClientSummary(doc.resumenFactura, summary, compare, add);
  checkAmountLimits(lines, summary, add);

  // Payment means.
  const medios = doc.resumenFactura.mediosPago.map((m) => ({
    tipo: medioCode(m.tipoMedioPago),
    ...(m.medioPagoOtros !== undefined ? { otros: m.medioPagoOtros } : {}),
    ...(m.totalMedioPago !== undefined ? { total: new Dec(m.totalMedioPago) } : {}),
  }));
  const validMedios = new Set(['01', '02', '03', '04', '05', '06', '07', '99']);
  medios.forEach((m, i) => {
    const p = `resumenFactura.mediosPago[${i}]`;
    if (!validMedios.has(m.tipo)) add(`${p}.tipoMedioPago`, 'must be one of 01, 02, 03, 04, 05, 06, 07, 99');
    if (m.tipo === '99' && !m.otros) add(`${p}.medioPagoOtros`, 'is required when tipoMedioPago is 99');
    if (medios.length > 1 && m.total === undefined)
      add(`${p}.totalMedioPago`, 'is required when there is more than one payment means');
    if (m.total?.lte(0)) add(`${p}.totalMedioPago`, 'must be greater than 0');
  });
  if (medios.length === 0 && !rules.medioPagoSiempre && !CONDICIONES_SIN_MEDIO_PAGO.has(condicionVenta)) {
    add(
      'resumenFactura.mediosPago',
      'at least one payment means is required unless condicionVenta is 02, 08 or 10',
    );
  }
  if (medios.length === 1 && medios[0]!.total !== undefined) {
    compare(
      'resumenFactura.mediosPago[0].totalMedioPago',
      doc.resumenFactura.mediosPago[0]!.totalMedioPago!,
      summary.totalComprobante,
    );
  } else if (medios.length > 1 && medios.every((m) => m.total !== undefined)) {
    const total = sum(medios.map((m) => m.total!));
    if (!withinTolerance(total, summary.totalComprobante)) {
      add(
        'resumenFactura.mediosPago',
        'the totalMedioPago values must add up to TotalComprobante',
        formatAmount(summary.totalComprobante),
      );
    }
  }

  // Kind-dependent rules: parties, header, references, line rules of ND/NC/FEE/REP.
  checkKindRules(doc, rules, { fechaEmision, now, condicionVenta, mediosPago: medios.length }, add);

  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      document: doc,
      tipo,
      rules,
      referencias: referencesOf(doc).map((r) => r.ref),
      fechaEmision: fechaEmision!,
      condicionVenta,
      codigoMoneda,
      tipoCambio,
      lines,
      otrosCargos,
      mediosPago: medios,
      summary,
    },
  };

  function compare(path: string, client: string | number, expected: Dec): void {
    // Fast path: a client value written exactly as we write the amount (5 decimals) or in its shortest
    // form is the same number, so it is within tolerance without parsing it into a decimal.
    // (A string in exponential notation is not a valid amount, so only plain shortest forms qualify.)
    const text = typeof client === 'number' ? String(client) : client;
    if (text === formatAmount(expected)) return;
    const shortest = expected.toString();
    if (text === shortest && (typeof client === 'number' || shortest.indexOf('e') === -1)) return;
    const value = parseDecimal(client);
    if (!value || !withinTolerance(value, expected)) {
      add(path, 'does not match the computed amount (tolerance 0.01)', formatAmount(expected));
    }
  }
}

/** Compares each summary total the client sent, and its TotalDesgloseImpuesto, with the engine's. */
function checkClientSummary(
  resumen: DocumentRequest['resumenFactura'],
  summary: SummaryAmounts,
  compare: (path: string, client: string, expected: Dec) => void,
  add: (path: string, reason: string, expected?: string) => void,
): void {
  if (resumen.totalOtrosCargos !== undefined)
    compare('resumenFactura.totalOtrosCargos', resumen.totalOtrosCargos, summary.totalOtrosCargos);
  for (const name of SUMMARY_TOTAL_NAMES) {
    const client = resumen[name];
    if (client !== undefined) compare(`resumenFactura.${name}`, client, summary[name]);
  }
  const desglose = resumen.totalDesgloseImpuesto;
  if (desglose === undefined) return;
  const ours = new Map(summary.totalDesgloseImpuesto.map((d) => [desgloseKey(d.codigo, d.codigoTarifa), d]));
  const matched = new Set<string>();
  desglose.forEach((d, i) => {
    const key = desgloseKey(d.codigo, d.codigoTarifa);
    const entry = ours.get(key);
    const path = `resumenFactura.totalDesgloseImpuesto[${i}]`;
    if (!entry || matched.has(key)) {
      add(
        path,
        `no line carries tax ${d.codigo}${d.codigoTarifa ? `/${d.codigoTarifa}` : ''} (or it is listed twice)`,
      );
      return;
    }
    matched.add(key);
    compare(`${path}.totalMontoImpuesto`, d.totalMontoImpuesto, entry.totalMontoImpuesto);
  });
  for (const [key, entry] of ours) {
    if (!matched.has(key))
      add(
        'resumenFactura.totalDesgloseImpuesto',
        `is missing tax ${entry.codigo}${entry.codigoTarifa ? `/${entry.codigoTarifa}` : ''}`,
        formatAmount(entry.totalMontoImpuesto),
      );
  }
}
