// The cross-field rules that depend on the kind of comprobante (KIND_RULES): who the receptor is (and
// the FEC's supplier), the header fields a kind has, the references NC/ND/FEC/REP need, and the line rules
// of ND/NC (transitional rates), FEE (tariff heading, no IVA on exported goods) and REP (no discounts, no
// other charges, payment means always). Adds issues through `add`; computes nothing.
import {
  type DocumentInformacionReferencia,
  type DocumentRequest,
  impuestoPath,
  lineImpuestos,
} from '@cr/contracts';
import { parseIsoDateTime } from './cr-time';
import { Clave, describeIdentificacionProblem } from './identifiers';
import { isServiceCabys } from './arithmetic';
import { type KindRules, articled } from './kind-rules';
import { Dec } from './money';

export type AddIssue = (path: string, reason: string, expected?: string) => void;

/** TipoDocIR whose Numero Hacienda checks to be a clave (REFERENCE §7.10; 19 FEE and 20 REP since 2026-04). */
export const REFERENCE_NEEDS_CLAVE: ReadonlySet<string> = new Set([
  '01',
  '02',
  '03',
  '04',
  '09',
  '11',
  '12',
  '15',
  '19',
  '20',
]);
/** Reference codes only one kind may use: 12 crédito por exoneración (NC), 17 pago a comprobante (REP). */
const REFERENCE_CODE_ONLY_IN: Record<string, string> = { '12': '3', '17': '10' };

/** FEC and FEE raise NumTelefono's minimum from 100 to 10000000 (their XSDs): an 8-digit number at least. */
const EIGHT_DIGIT_TELEFONO_TIPOS: ReadonlySet<string> = new Set(['8', '9']);
export const MIN_TELEFONO_FEC_FEE = 10_000_000;

/** The request's telephone (the supplier's in FEC, the receptor's in FEE) must fit the kind's NumTelefono. */
function checkTelefono(doc: DocumentRequest, rules: KindRules, add: AddIssue): void {
  if (!EIGHT_DIGIT_TELEFONO_TIPOS.has(rules.tipoDoc)) return;
  const party = rules.receptor === 'issuer' ? 'proveedor' : 'receptor';
  const source = party === 'proveedor' ? doc.proveedor : doc.receptor;
  const telefono = source === undefined || source === '' ? undefined : source.telefono;
  if (telefono !== undefined && Number(telefono) < MIN_TELEFONO_FEC_FEE)
    add(
      `${party}.telefono`,
      `must be at least ${MIN_TELEFONO_FEC_FEE} (8 digits) in ${articled(rules.name)}`,
    );
}

/** The references as a list with the path prefix of each (a single object keeps its plain path). */
export function referencesOf(
  doc: DocumentRequest,
): Array<{ ref: DocumentInformacionReferencia; path: string }> {
  const r = doc.informacionReferencia;
  if (r === undefined) return [];
  if (Array.isArray(r)) return r.map((ref, i) => ({ ref, path: `informacionReferencia[${i}]` }));
  return [{ ref: r, path: 'informacionReferencia' }];
}

function checkParties(doc: DocumentRequest, rules: KindRules, add: AddIssue): void {
  const r = doc.receptor;
  if (rules.receptor === 'issuer') {
    if (r !== undefined && r !== '')
      add(
        'receptor',
        `is not allowed in ${articled(rules.name)}: its receptor is the issuer; give the supplier as proveedor`,
      );
    const p = doc.proveedor;
    if (!p) {
      add('proveedor', `is required for ${articled(rules.name)} (tipoDoc ${rules.tipoDoc})`);
      return;
    }
    const t = p.identificacion.tipo;
    const problem = describeIdentificacionProblem(t, p.identificacion.numero);
    if (problem) add('proveedor.identificacion.numero', problem.replace(/^numero /, ''));
    if (t === '05') {
      if (p.ubicacion)
        add(
          'proveedor.ubicacion',
          'is not allowed for a foreign supplier (type 05); use otrasSenasExtranjero',
        );
      if (!p.otrasSenasExtranjero)
        add('proveedor.otrasSenasExtranjero', 'is required for a foreign supplier (type 05)');
    } else {
      if (p.otrasSenasExtranjero !== undefined)
        add('proveedor.otrasSenasExtranjero', 'is only allowed for a foreign supplier (type 05)');
      if (!p.ubicacion && t !== '06') add('proveedor.ubicacion', `is required for a supplier of type ${t}`);
    }
    if (t === '06' && (doc.condicionVenta ?? rules.condicionPorDefecto) !== '13')
      add('proveedor.identificacion.tipo', 'type 06 (no contribuyente) requires condicionVenta 13');
    if (t === '05' && !referencesOf(doc).some(({ ref }) => ref.tipoDocumento === '16'))
      add('informacionReferencia', 'a foreign supplier (type 05) requires a reference of tipoDocumento 16');
    return;
  }
  if (doc.proveedor !== undefined) add('proveedor', 'is only allowed in a purchase invoice (tipoDoc 8)');
  if (r === undefined || r === '') {
    if (rules.receptor === 'required')
      add('receptor', `is required for ${articled(rules.name)} (only a ticket may omit it)`);
    // The contract names a ticket's missing receiver: the field is "" (service-spec, Receiver rules).
    else if (r === undefined) add('receptor', 'is required: "" for a ticket without receiver');
    return;
  }
  const t = r.identificacion.tipo;
  if (!rules.receptorTipos.includes(t)) {
    if (rules.receptor === 'ticket')
      add('receptor.identificacion.tipo', 'a ticket receptor is either absent ("") or foreign (type 05)');
    else if (t === '05')
      add(
        'receptor.identificacion.tipo',
        `type 05 (foreign) is not allowed in ${articled(rules.name)}; it is only allowed in a ticket, a debit note, an export invoice or a payment receipt`,
      );
    else
      add(
        'receptor.identificacion.tipo',
        `must be one of ${rules.receptorTipos.join(', ')} in ${articled(rules.name)}`,
      );
  }
  const problem = describeIdentificacionProblem(t, r.identificacion.numero);
  if (problem) add('receptor.identificacion.numero', problem.replace(/^numero /, ''));
  if (r.otrasSenasExtranjero !== undefined && t !== '05')
    add('receptor.otrasSenasExtranjero', 'is only allowed for a foreign receptor (type 05)');
}

/** Whether any line's tax carries an exoneration of `tipo` (a surtido's components carry none). */
function hasExonerationOfType(doc: DocumentRequest, tipo: string): boolean {
  return doc.detalleServicio.some((line) =>
    lineImpuestos(line).some((tax) => tax.exoneracion?.tipoDocumento === tipo),
  );
}

/** The oldest FechaEmisionIR a reference may carry at `now`: ten years before (REFERENCE §7.10). */
export function oldestReferenceDate(now: Date): Date {
  const oldest = new Date(now.getTime());
  oldest.setUTCFullYear(oldest.getUTCFullYear() - 10);
  return oldest;
}

function checkReferences(
  doc: DocumentRequest,
  rules: KindRules,
  fechaEmision: Date | undefined,
  now: Date,
  add: AddIssue,
): void {
  const refs = referencesOf(doc);
  if (rules.referenciaRequerida && refs.length === 0)
    add('informacionReferencia', `is required for ${articled(rules.name)}`);
  else if (rules.tipoDoc === '1' && refs.length === 0 && hasExonerationOfType(doc, '11'))
    add(
      'informacionReferencia',
      'is required for an invoice with an exoneration of tipoDocumento 11 (autorización de impuesto local concreta)',
    );
  const tenYears = oldestReferenceDate(now);
  for (const { ref, path } of refs) {
    if (REFERENCE_NEEDS_CLAVE.has(ref.tipoDocumento)) {
      try {
        Clave.parse(ref.numero);
      } catch (err) {
        add(
          `${path}.numero`,
          `must be the 50-digit clave of the referenced document (${(err as Error).message})`,
        );
      }
    }
    const refDate = parseIsoDateTime(ref.fechaEmision);
    if (!refDate) add(`${path}.fechaEmision`, 'is not a valid date-time');
    else {
      if (refDate < tenYears) add(`${path}.fechaEmision`, 'must be at most 10 years old');
      if (fechaEmision && refDate > fechaEmision)
        add(`${path}.fechaEmision`, 'must not be after fechaEmision');
    }
    if (ref.tipoDocumento === '99' && !ref.tipoDocumentoOtro)
      add(`${path}.tipoDocumentoOtro`, 'is required when tipoDocumento is 99');
    if (ref.codigo === '99' && !ref.codigoOtro) add(`${path}.codigoOtro`, 'is required when codigo is 99');
    const only = REFERENCE_CODE_ONLY_IN[ref.codigo];
    if (only !== undefined && only !== rules.tipoDoc)
      add(
        `${path}.codigo`,
        `${ref.codigo} is only allowed in a ${ref.codigo === '12' ? 'credit note' : 'payment receipt'}`,
      );
    if (ref.tipoDocumento === '16' && rules.tipoDoc !== '8')
      add(`${path}.tipoDocumento`, '16 (proveedor no domiciliado) is only allowed in a purchase invoice');
  }
}

function checkLines(doc: DocumentRequest, rules: KindRules, add: AddIssue): void {
  doc.detalleServicio.forEach((line, i) => {
    const p = `detalleServicio[${i}]`;
    if (rules.partidaArancelaria === 'none' && line.partidaArancelaria !== undefined)
      add(`${p}.partidaArancelaria`, `is not allowed in ${articled(rules.name)}`);
    // The REP's line has neither CABYS nor unit (its XSD); every other kind's requires both.
    if (rules.lines !== 'payment') {
      if (line.codigo === undefined) add(`${p}.codigo`, `is required in ${articled(rules.name)}`);
      if (line.unidadMedida === undefined) add(`${p}.unidadMedida`, `is required in ${articled(rules.name)}`);
    }
    const goods = !isServiceCabys(line.codigo ?? '');
    if (rules.partidaArancelaria === 'goods' && goods && line.partidaArancelaria === undefined)
      add(`${p}.partidaArancelaria`, 'is required on a goods line of an export invoice');
    if (!rules.descuentos) {
      if (line.descuento !== undefined && new Dec(line.descuento).gt(0))
        add(`${p}.descuento`, `is not allowed in ${articled(rules.name)}`);
      if ((line.descuentos?.length ?? 0) > 0)
        add(`${p}.descuentos`, `are not allowed in ${articled(rules.name)}`);
    }
    // The same for each exported goods component of a surtido line.
    if (rules.lines === 'export')
      (line.detalleSurtido ?? []).forEach((c, k) => {
        if (isServiceCabys(c.codigo)) return;
        c.impuestos.forEach((tax, m) => {
          if (tax.codigo === '01' && tax.tarifa !== undefined && !new Dec(tax.tarifa).isZero())
            add(
              `${p}.detalleSurtido[${k}].impuestos[${m}].codigoTarifa`,
              'exported goods carry no IVA: use codigoTarifa 01 (0 %, with credit) or 10 (exenta)',
            );
        });
      });
    const taxes = lineImpuestos(line);
    // An FEE line has no BaseImponible (its XSD), so a tax 07 computed on an edited base would carry a
    // Monto that no element of the document explains, and Hacienda rejects it (REFERENCE §9.1 item 5).
    if (rules.lines === 'export' && line.baseImponible !== undefined && taxes.some((t) => t.codigo === '07'))
      add(
        `${p}.baseImponible`,
        'cannot be edited in an export invoice (its line has no BaseImponible): tax 07 is computed on subTotal',
      );
    if (rules.lines === 'payment' && (taxes.length !== 1 || taxes[0]!.codigo !== '01'))
      add(`${p}.impuesto`, 'a payment receipt line registers one tax: the IVA (01) of the payment');
    if (rules.lines !== 'full') {
      if (line.ivaCobradoFabrica !== undefined)
        add(`${p}.ivaCobradoFabrica`, `is not allowed in ${articled(rules.name)}`);
      if (line.impuestoAsumidoEmisorFabrica !== undefined && new Dec(line.impuestoAsumidoEmisorFabrica).gt(0))
        add(`${p}.impuestoAsumidoEmisorFabrica`, `is not allowed in ${articled(rules.name)}`);
    }
    taxes.forEach((tax, j) => {
      // MontoExportacion: "uso exclusivo para exportación de mercancías que apliquen impuestos especiales"
      // (FEE, NC, ND ImpuestoType); informational, see ADR 0024.
      if (tax.montoExportacion !== undefined) {
        const mp = `${impuestoPath(line, p, j)}.montoExportacion`;
        if (!rules.montoExportacion)
          add(
            mp,
            `is not allowed in ${articled(rules.name)} (only in export invoices and debit or credit notes)`,
          );
        else if (tax.codigo === '01' || tax.codigo === '07' || tax.codigo === '08')
          add(mp, 'is only for a special tax (not IVA 01, 07 or 08)');
        else if (!goods) add(mp, 'is only for goods (a CABYS starting with 0–4), not services');
      }
      if (rules.lines !== 'full' && tax.datosImpuestoEspecifico !== undefined)
        add(
          `${impuestoPath(line, p, j)}.datosImpuestoEspecifico`,
          `is not allowed in ${articled(rules.name)}`,
        );
      const iva = tax.codigo === '01' || tax.codigo === '07';
      if (
        rules.lines === 'export' &&
        goods &&
        iva &&
        tax.tarifa !== undefined &&
        !new Dec(tax.tarifa).isZero()
      )
        add(
          `${impuestoPath(line, p, j)}.codigoTarifa`,
          'exported goods carry no IVA: use codigoTarifa 01 (0 %, with credit) or 10 (exenta)',
        );
    });
  });
}

/** Every kind-dependent rule of a schema-valid request. */
export function checkKindRules(
  doc: DocumentRequest,
  rules: KindRules,
  context: { fechaEmision: Date | undefined; now: Date; condicionVenta: string; mediosPago: number },
  add: AddIssue,
): void {
  checkParties(doc, rules, add);
  checkTelefono(doc, rules, add);
  // The contract allows INVOICE for every kind (the spec's original value) or the kind's own type; another
  // kind's type would be echoed in the webhook event as a document this is not.
  if (doc.folioType !== 'INVOICE' && doc.folioType !== rules.folioType)
    add(
      'folioType',
      `${doc.folioType} is not the type of ${articled(rules.name)}: use INVOICE${rules.folioType === 'INVOICE' ? '' : ` or ${rules.folioType}`}`,
    );
  if (!rules.condiciones.includes(context.condicionVenta))
    add(
      'condicionVenta',
      `${context.condicionVenta} is not allowed in ${articled(rules.name)} (allowed: ${rules.condiciones.join(', ')})`,
    );
  if (rules.actividadReceptor !== 'optional' && doc.codigoActividadReceptor !== undefined)
    add('codigoActividadReceptor', `is not allowed in ${articled(rules.name)}`);
  if (!rules.otrosCargos && (doc.otrosCargos?.length ?? 0) > 0)
    add('otrosCargos', `are not allowed in ${articled(rules.name)}`);
  if (rules.medioPagoSiempre && context.mediosPago === 0)
    add('resumenFactura.mediosPago', `at least one payment means is required in ${articled(rules.name)}`);
  checkReferences(doc, rules, context.fechaEmision, context.now, add);
  checkLines(doc, rules, add);
}
