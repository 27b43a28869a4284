// MensajeReceptor v4.4 (REFERENCE §6.2): the receiver's answer to a supplier's comprobante: 1 aceptado,
// 2 aceptación parcial, 3 rechazado, numbered with its own consecutivo of type 05/06/07. The plan step
// checks the answer against the received document (amounts, condición del IVA) and returns every issue;
// the builder writes and signs it with the receptor's key; the parser reads one back (sandbox, tests).
import type { Document } from '@xmldom/xmldom';
import type { DocumentIssue } from './errors';
import { HaciendaXmlError } from './errors';
import { formatCostaRicaDateTime } from './cr-time';
import { Clave, Consecutivo, type TipoComprobante } from './identifiers';
import { Dec, ZERO, formatAmount, parseDecimal } from './money';
import type { SigningKey } from './signing-key';
import { type SignOptions, signCanonicalDocument } from './xades-sign';
import { readMessageFields } from './message-fields';
import { el, opt } from './xml-text';

export const MENSAJE_RECEPTOR_NS =
  'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeReceptor';

export type MensajeReceptorCodigo = 1 | 2 | 3;

/** Consecutivo type of each message (REFERENCE §1.1): 05 aceptación, 06 parcial, 07 rechazo. */
export const TIPO_MENSAJE_RECEPTOR: Record<MensajeReceptorCodigo, TipoComprobante> = {
  1: '05',
  2: '06',
  3: '07',
};

/** Nota 18: 01 crédito IVA, 02 crédito parcial, 03 bienes de capital, 04 gasto sin crédito, 05 proporcionalidad. */
export type CondicionImpuesto = '01' | '02' | '03' | '04' | '05';
const CONDICIONES = new Set(['01', '02', '03', '04', '05']);

/** What the receiver knows of the received document. */
export interface ReceivedForAnswer {
  clave: string;
  /** The supplier's identification (NumeroCedulaEmisor). */
  emisorNumero: string;
  totalComprobante: string;
  /** TotalImpuesto of the received document; absent when it carries no tax. */
  totalImpuesto?: string;
}

/** The client's answer (POST /api/recepcion/documentos/{clave}/respuesta). */
export interface AnswerInput {
  mensaje: number;
  detalleMensaje?: string;
  codigoActividad?: string;
  condicionImpuesto?: string;
  montoTotalImpuestoAcreditar?: string | number;
  montoTotalDeGastoAplicable?: string | number;
}

/** The message's content, amounts decided. */
export interface MensajeReceptorContent {
  clave: string;
  numeroCedulaEmisor: string;
  fechaEmisionDoc: string;
  mensaje: MensajeReceptorCodigo;
  detalleMensaje?: string;
  montoTotalImpuesto?: string;
  codigoActividad?: string;
  condicionImpuesto?: CondicionImpuesto;
  montoTotalImpuestoAcreditar?: string;
  montoTotalDeGastoAplicable?: string;
  totalFactura: string;
  numeroCedulaReceptor: string;
  numeroConsecutivoReceptor: string;
}

export type PlanResult =
  | { ok: true; value: Omit<MensajeReceptorContent, 'numeroCedulaReceptor' | 'numeroConsecutivoReceptor'> }
  | { ok: false; issues: DocumentIssue[] };

function amountOf(path: string, value: unknown, issues: DocumentIssue[]): Dec | undefined {
  if (value === undefined || value === null) return undefined;
  const d = parseDecimal(value);
  if (!d || d.isNegative() || d.decimalPlaces() > 5 || d.greaterThanOrEqualTo('1e13')) {
    issues.push({
      path,
      reason: 'must be a non-negative amount with at most 13 integer and 5 decimal digits',
    });
    return undefined;
  }
  return d;
}

/**
 * Decides the MensajeReceptor's content for an answer to a received document. Rules (REFERENCE §6.2,
 * Nota 11 and Nota 18): DetalleMensaje is required for 2 and 3; a rejection carries no IVA condition or
 * amounts; an acceptance of a document with tax names its condición; the amount to credit is the whole
 * tax for 01 and 03, none for 04, and more than zero and less than the tax (02) or at most the tax (05);
 * the applicable expense is at most the document's total (default: the total, or nothing on a rejection).
 */
export function planMensajeReceptor(
  received: ReceivedForAnswer,
  answer: AnswerInput,
  now: Date = new Date(),
): PlanResult {
  const issues: DocumentIssue[] = [];
  const mensaje = answer.mensaje;
  if (mensaje !== 1 && mensaje !== 2 && mensaje !== 3) {
    return {
      ok: false,
      issues: [{ path: 'mensaje', reason: 'must be 1 (aceptado), 2 (parcial) or 3 (rechazado)' }],
    };
  }
  const detalle = answer.detalleMensaje?.trim();
  if ((mensaje === 2 || mensaje === 3) && !detalle) {
    issues.push({ path: 'detalleMensaje', reason: 'is required for a partial acceptance or a rejection' });
  }
  if (detalle !== undefined && detalle.length > 160) {
    issues.push({ path: 'detalleMensaje', reason: 'must be at most 160 characters' });
  }
  if (answer.codigoActividad !== undefined && !/^(\d{4}\.\d|\d{6})$/.test(answer.codigoActividad)) {
    issues.push({ path: 'codigoActividad', reason: 'must be the 6-character activity code (e.g. 6201.0)' });
  }
  const total = parseDecimal(received.totalComprobante) ?? ZERO;
  const tax =
    received.totalImpuesto === undefined ? undefined : (parseDecimal(received.totalImpuesto) ?? ZERO);
  const acreditar = amountOf('montoTotalImpuestoAcreditar', answer.montoTotalImpuestoAcreditar, issues);
  const gasto = amountOf('montoTotalDeGastoAplicable', answer.montoTotalDeGastoAplicable, issues);
  const condicion = answer.condicionImpuesto;
  if (condicion !== undefined && !CONDICIONES.has(condicion)) {
    issues.push({ path: 'condicionImpuesto', reason: 'must be 01, 02, 03, 04 or 05 (Nota 18)' });
  }

  let acreditarOut: Dec | undefined;
  let gastoOut: Dec | undefined;
  if (mensaje === 3) {
    for (const [path, v] of [
      ['condicionImpuesto', condicion],
      ['montoTotalImpuestoAcreditar', answer.montoTotalImpuestoAcreditar],
      ['montoTotalDeGastoAplicable', answer.montoTotalDeGastoAplicable],
    ] as const) {
      if (v !== undefined) issues.push({ path, reason: 'must be left out of a rejection (mensaje 3)' });
    }
  } else {
    const taxed = tax?.greaterThan(0);
    if (taxed && condicion === undefined) {
      issues.push({
        path: 'condicionImpuesto',
        reason: `is required to accept a document with tax (${formatAmount(tax ?? ZERO)}): 01..05 (Nota 18)`,
      });
    }
    const fullTax = tax ?? ZERO;
    switch (condicion) {
      case '01':
      case '03':
        if (acreditar && !acreditar.equals(fullTax)) {
          issues.push({
            path: 'montoTotalImpuestoAcreditar',
            reason: `must equal the document's tax ${formatAmount(fullTax)} for condición ${condicion}`,
          });
        }
        acreditarOut = fullTax;
        break;
      case '04':
        if (acreditar && !acreditar.isZero()) {
          issues.push({
            path: 'montoTotalImpuestoAcreditar',
            reason: 'must be 0 or left out for condición 04 (gasto corriente sin crédito)',
          });
        }
        break;
      case '02':
      case '05':
        if (!acreditar) {
          issues.push({
            path: 'montoTotalImpuestoAcreditar',
            reason: `is required for condición ${condicion}`,
          });
        } else if (condicion === '02' && (acreditar.isZero() || acreditar.greaterThanOrEqualTo(fullTax))) {
          issues.push({
            path: 'montoTotalImpuestoAcreditar',
            reason: `must be more than 0 and less than the document's tax ${formatAmount(fullTax)} for a partial credit (02)`,
          });
        } else if (acreditar.greaterThan(fullTax)) {
          issues.push({
            path: 'montoTotalImpuestoAcreditar',
            reason: `must not exceed the document's tax ${formatAmount(fullTax)}`,
          });
        }
        acreditarOut = acreditar;
        break;
      default:
        if (acreditar) {
          issues.push({ path: 'condicionImpuesto', reason: 'is required with montoTotalImpuestoAcreditar' });
        }
    }
    if (gasto?.greaterThan(total)) {
      issues.push({
        path: 'montoTotalDeGastoAplicable',
        reason: `must not exceed the document's total ${formatAmount(total)}`,
      });
    }
    gastoOut = gasto ?? (condicion === undefined ? undefined : total);
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      clave: received.clave,
      numeroCedulaEmisor: received.emisorNumero,
      // "Fecha de emision de la confirmación" (the XSD's annotation): the message's date, not the invoice's.
      fechaEmisionDoc: formatCostaRicaDateTime(now),
      mensaje,
      ...(detalle ? { detalleMensaje: detalle } : {}),
      ...(tax !== undefined ? { montoTotalImpuesto: formatAmount(tax) } : {}),
      ...(answer.codigoActividad ? { codigoActividad: answer.codigoActividad } : {}),
      ...(condicion !== undefined && mensaje !== 3
        ? { condicionImpuesto: condicion as CondicionImpuesto }
        : {}),
      ...(acreditarOut !== undefined ? { montoTotalImpuestoAcreditar: formatAmount(acreditarOut) } : {}),
      ...(gastoOut !== undefined ? { montoTotalDeGastoAplicable: formatAmount(gastoOut) } : {}),
      totalFactura: formatAmount(total),
    },
  };
}

const CEDULA = /^\d{9,12}$/;

/** Builds and signs a MensajeReceptor; throws HaciendaXmlError('invalid_message') on a bad value. */
export function buildMensajeReceptor(
  content: MensajeReceptorContent,
  key: SigningKey,
  sign: SignOptions = {},
): string {
  const bad = (message: string) => new HaciendaXmlError('invalid_message', message);
  try {
    Clave.parse(content.clave);
  } catch (err) {
    throw bad((err as Error).message);
  }
  if (!CEDULA.test(content.numeroCedulaEmisor)) throw bad('NumeroCedulaEmisor must be 9 to 12 digits');
  if (!CEDULA.test(content.numeroCedulaReceptor)) throw bad('NumeroCedulaReceptor must be 9 to 12 digits');
  const consecutivo = Consecutivo.parse(content.numeroConsecutivoReceptor);
  if (consecutivo.tipo !== TIPO_MENSAJE_RECEPTOR[content.mensaje]) {
    throw bad(
      `NumeroConsecutivoReceptor must be of type ${TIPO_MENSAJE_RECEPTOR[content.mensaje]} for Mensaje ${content.mensaje}`,
    );
  }
  const money = (name: string, value: string | undefined) =>
    value === undefined ? '' : `<${name}>${formatAmount(new Dec(value))}</${name}>`;
  const body =
    el('Clave', content.clave) +
    el('NumeroCedulaEmisor', content.numeroCedulaEmisor) +
    el('FechaEmisionDoc', content.fechaEmisionDoc) +
    `<Mensaje>${content.mensaje}</Mensaje>` +
    opt('DetalleMensaje', content.detalleMensaje) +
    money('MontoTotalImpuesto', content.montoTotalImpuesto) +
    opt('CodigoActividad', content.codigoActividad) +
    opt('CondicionImpuesto', content.condicionImpuesto) +
    money('MontoTotalImpuestoAcreditar', content.montoTotalImpuestoAcreditar) +
    money('MontoTotalDeGastoAplicable', content.montoTotalDeGastoAplicable) +
    money('TotalFactura', content.totalFactura) +
    el('NumeroCedulaReceptor', content.numeroCedulaReceptor) +
    el('NumeroConsecutivoReceptor', consecutivo.value);
  return signCanonicalDocument(
    {
      open: `<MensajeReceptor xmlns="${MENSAJE_RECEPTOR_NS}">`,
      body,
      close: '</MensajeReceptor>',
      namespace: MENSAJE_RECEPTOR_NS,
    },
    key,
    sign,
  );
}

/**
 * Reads a MensajeReceptor back (its text, or its document when the caller parsed it: parseMessage); throws
 * HaciendaXmlError('malformed_message') with the reason.
 */
export function parseMensajeReceptor(xml: string | Document): MensajeReceptorContent {
  const { text, required } = readMessageFields(xml, 'MensajeReceptor');
  const get = (name: string) => text(name)?.trim();
  const mensaje = Number(required('Mensaje'));
  if (mensaje !== 1 && mensaje !== 2 && mensaje !== 3)
    throw new HaciendaXmlError('malformed_message', 'Mensaje must be 1, 2 or 3');
  const optional = (name: string, key: keyof MensajeReceptorContent) => {
    const v = get(name);
    return v === undefined ? {} : { [key]: v };
  };
  return {
    clave: required('Clave'),
    numeroCedulaEmisor: required('NumeroCedulaEmisor'),
    fechaEmisionDoc: required('FechaEmisionDoc'),
    mensaje,
    ...optional('DetalleMensaje', 'detalleMensaje'),
    ...optional('MontoTotalImpuesto', 'montoTotalImpuesto'),
    ...optional('CodigoActividad', 'codigoActividad'),
    ...(optional('CondicionImpuesto', 'condicionImpuesto') as { condicionImpuesto?: CondicionImpuesto }),
    ...optional('MontoTotalImpuestoAcreditar', 'montoTotalImpuestoAcreditar'),
    ...optional('MontoTotalDeGastoAplicable', 'montoTotalDeGastoAplicable'),
    totalFactura: required('TotalFactura'),
    numeroCedulaReceptor: required('NumeroCedulaReceptor'),
    numeroConsecutivoReceptor: required('NumeroConsecutivoReceptor'),
  };
}
