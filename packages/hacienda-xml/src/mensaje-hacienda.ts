// MensajeHacienda v4.4 (REFERENCE §6.1): Hacienda's answer to a comprobante. Parsing + verification for
// the tenant-api, and building + signing for the local sandbox, which answers with its own key.
import type { Document } from '@xmldom/xmldom';
import { Clave } from './identifiers';
import { parseMessage, readMessageFields } from './message-fields';
import { HaciendaXmlError } from './errors';
import type { SigningKey } from './signing-key';
import { Dec, formatAmount } from './money';
import { type SignOptions, signCanonicalDocument } from './xades-sign';
import { type VerificationResult, type VerifyOptions, verifySignedXml } from './xades-verify';
import { el, opt } from './xml-text';

export const MENSAJE_HACIENDA_NS =
  'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeHacienda';

export interface DetalleMensajeLine {
  codigo: number;
  mensaje: string;
  fila: number;
  columna: number;
}

export interface MensajeHacienda {
  clave: string;
  nombreEmisor: string;
  tipoIdentificacionEmisor: string;
  numeroCedulaEmisor: string;
  nombreReceptor?: string;
  tipoIdentificacionReceptor?: string;
  numeroCedulaReceptor?: string;
  /** 1 aceptado, 3 rechazado. */
  mensaje: 1 | 3;
  estadoMensaje: string;
  /** The raw DetalleMensaje text. */
  detalleMensaje: string;
  /** The finding lines of DetalleMensaje (`codigo, "mensaje", fila, columna`). */
  detalles: DetalleMensajeLine[];
  montoTotalImpuesto?: string;
  totalFactura: string;
}

const INTEGER = /^-?\d+$/;

/**
 * One finding line, `codigo, "mensaje", fila, columna`: the first field and the last two are integers and the
 * message (which may hold commas) is everything between, without its quotes and surrounding spaces. Cut at
 * the commas rather than matched by one regular expression: a supplier's upload carries this text, and the
 * expression's ambiguous spaces made a long line cost polynomial time.
 */
function parseDetailLine(row: string): DetalleMensajeLine | undefined {
  const first = row.indexOf(',');
  const last = row.lastIndexOf(',');
  const beforeLast = last > 0 ? row.lastIndexOf(',', last - 1) : -1;
  if (first < 0 || beforeLast <= first) return undefined;
  const [codigo, fila, columna] = [
    row.slice(0, first),
    row.slice(beforeLast + 1, last),
    row.slice(last + 1),
  ].map((field) => field.trim());
  if (![codigo, fila, columna].every((field) => INTEGER.test(field ?? ''))) return undefined;
  const mensaje = row
    .slice(first + 1, beforeLast)
    .trim()
    .replace(/^"/, '')
    .replace(/"$/, '');
  return { codigo: Number(codigo), mensaje, fila: Number(fila), columna: Number(columna) };
}

/** Splits DetalleMensaje into its finding lines; the header and free text are skipped. */
export function parseDetalleMensaje(text: string): DetalleMensajeLine[] {
  const out: DetalleMensajeLine[] = [];
  for (const row of text.split(/\r?\n|\r/)) {
    const line = parseDetailLine(row);
    if (line) out.push(line);
  }
  return out;
}

/**
 * Parses a MensajeHacienda (its text, or the document parseMessage read from it); throws
 * HaciendaXmlError('malformed_message') with the reason.
 */
export function parseMensajeHacienda(xml: string | Document): MensajeHacienda {
  const { text: get, required } = readMessageFields(xml, 'MensajeHacienda');
  const clave = required('Clave');
  try {
    Clave.parse(clave);
  } catch (err) {
    throw new HaciendaXmlError('malformed_message', (err as Error).message);
  }
  const mensaje = Number(required('Mensaje'));
  if (mensaje !== 1 && mensaje !== 3)
    throw new HaciendaXmlError('malformed_message', 'Mensaje must be 1 or 3');
  const detalle = get('DetalleMensaje') ?? '';
  const optional = (name: string) => {
    const v = get(name);
    return v === undefined ? {} : { [name.charAt(0).toLowerCase() + name.slice(1)]: v.trim() };
  };
  return {
    clave,
    nombreEmisor: required('NombreEmisor'),
    tipoIdentificacionEmisor: required('TipoIdentificacionEmisor'),
    numeroCedulaEmisor: required('NumeroCedulaEmisor'),
    ...optional('NombreReceptor'),
    ...optional('TipoIdentificacionReceptor'),
    ...optional('NumeroCedulaReceptor'),
    mensaje,
    estadoMensaje: get('EstadoMensaje')?.trim() ?? (mensaje === 1 ? 'Aceptado' : 'Rechazado'),
    detalleMensaje: detalle,
    detalles: parseDetalleMensaje(detalle),
    ...optional('MontoTotalImpuesto'),
    totalFactura: required('TotalFactura'),
  };
}

/**
 * Parses and verifies a MensajeHacienda's signature (no XAdES policy is required of Hacienda). With `trust`,
 * the signing certificate must also chain to the pinned CA bundle and be Hacienda's seal (`untrusted_signer`).
 */
export function readMensajeHacienda(
  xml: string,
  options: Pick<VerifyOptions, 'trust' | 'now'> = {},
): {
  message: MensajeHacienda;
  verification: VerificationResult;
} {
  const parsed = parseMessage(xml);
  const message = parseMensajeHacienda(parsed);
  return { message, verification: verifySignedXml(xml, { ...options, requirePolicy: false, parsed }) };
}

export interface BuildMensajeHaciendaOptions {
  clave: string;
  nombreEmisor: string;
  tipoIdentificacionEmisor: string;
  numeroCedulaEmisor: string;
  nombreReceptor?: string;
  tipoIdentificacionReceptor?: string;
  numeroCedulaReceptor?: string;
  mensaje: 1 | 3;
  /** Findings written as `codigo, "mensaje", fila, columna` lines after a header. */
  detalles?: DetalleMensajeLine[];
  /** Free text before the findings; default `.`. */
  texto?: string;
  montoTotalImpuesto?: string;
  totalFactura: string;
  key: SigningKey;
  sign?: SignOptions;
}

/** Builds and signs a MensajeHacienda (for the sandbox); throws HaciendaXmlError on bad values. */
export function buildMensajeHacienda(options: BuildMensajeHaciendaOptions): string {
  try {
    Clave.parse(options.clave);
  } catch (err) {
    throw new HaciendaXmlError('invalid_message', (err as Error).message);
  }
  const money = (name: string, value: string | undefined) => {
    if (value === undefined) return '';
    if (!/^\d{1,13}(\.\d{1,5})?$/.test(value))
      throw new HaciendaXmlError('invalid_message', `${name} must be a decimal amount`);
    return `<${name}>${formatAmount(new Dec(value))}</${name}>`;
  };
  const lines = options.detalles ?? [];
  const detalle =
    (options.texto ?? '.') +
    (lines.length > 0
      ? `\r\ncodigo, mensaje, fila, columna${lines.map((l) => `\r\n${l.codigo}, "${l.mensaje.replace(/"/g, "'")}", ${l.fila}, ${l.columna}`).join('')}`
      : '');
  const body =
    el('Clave', options.clave) +
    el('NombreEmisor', options.nombreEmisor.slice(0, 100)) +
    el('TipoIdentificacionEmisor', options.tipoIdentificacionEmisor) +
    el('NumeroCedulaEmisor', options.numeroCedulaEmisor) +
    opt('NombreReceptor', options.nombreReceptor?.slice(0, 100)) +
    opt('TipoIdentificacionReceptor', options.tipoIdentificacionReceptor) +
    opt('NumeroCedulaReceptor', options.numeroCedulaReceptor) +
    `<Mensaje>${options.mensaje}</Mensaje>` +
    el('EstadoMensaje', options.mensaje === 1 ? 'Aceptado' : 'Rechazado') +
    el('DetalleMensaje', detalle) +
    money('MontoTotalImpuesto', options.montoTotalImpuesto) +
    money('TotalFactura', options.totalFactura);
  return signCanonicalDocument(
    {
      open: `<MensajeHacienda xmlns="${MENSAJE_HACIENDA_NS}">`,
      body,
      close: '</MensajeHacienda>',
      namespace: MENSAJE_HACIENDA_NS,
    },
    options.key,
    { claimedRole: null, ...options.sign },
  );
}
