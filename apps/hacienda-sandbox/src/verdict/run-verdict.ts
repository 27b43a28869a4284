// Runs the verdict pipeline over one received comprobante and turns the outcome into Hacienda's answer:
// `aceptado`/`rechazado` with a signed MensajeHacienda, or `error` when the document cannot be processed.
import type { VerdictCheck, VerdictContext } from './checks';
import { CODES, type Finding } from './findings';
import { type ParsedComprobante, UnprocessableXmlError, parseComprobante } from './parse-comprobante';

/** What the MensajeHacienda says; the signer turns it into signed XML. */
export interface ResponseContent {
  clave: string;
  nombreEmisor: string;
  tipoIdentificacionEmisor: string;
  numeroCedulaEmisor: string;
  nombreReceptor?: string;
  tipoIdentificacionReceptor?: string;
  numeroCedulaReceptor?: string;
  mensaje: 1 | 3;
  texto: string;
  findings: Finding[];
  montoTotalImpuesto?: string;
  totalFactura: string;
}

export type ResponseSigner = (content: ResponseContent) => string;

export type ForcedVerdict =
  | { outcome: 'accept' }
  | { outcome: 'reject'; code?: number; text?: string }
  | { outcome: 'error' }
  | { outcome: 'never' };

export type VerdictResult =
  | { estado: 'aceptado' | 'rechazado'; findings: Finding[]; respuestaXml: string }
  | { estado: 'error'; findings: Finding[] };

export const ACCEPTED_TEXT =
  'Este comprobante fue aceptado en el ambiente de pruebas, por lo cual no tiene validez para fines tributarios';
export const REJECTED_TEXT = 'Este comprobante fue rechazado en el ambiente de pruebas';

const IDENT_TYPES = new Set(['01', '02', '03', '04', '05', '06']);

function amount(value: string | undefined): string | undefined {
  return value !== undefined && /^\d{1,13}(\.\d{1,5})?$/.test(value) ? value : undefined;
}

export function buildResponseContent(
  doc: ParsedComprobante,
  clave: string,
  findings: Finding[],
): ResponseContent {
  const rejected = findings.some((f) => !f.warning);
  const receptor = doc.receptor;
  return {
    clave,
    nombreEmisor: (doc.emisor.nombre ?? '').slice(0, 100),
    tipoIdentificacionEmisor: IDENT_TYPES.has(doc.emisor.tipo ?? '') ? (doc.emisor.tipo as string) : '02',
    numeroCedulaEmisor: (doc.emisor.numero ?? '').slice(0, 20),
    ...(receptor?.nombre ? { nombreReceptor: receptor.nombre.slice(0, 100) } : {}),
    ...(receptor?.tipo && IDENT_TYPES.has(receptor.tipo)
      ? { tipoIdentificacionReceptor: receptor.tipo }
      : {}),
    ...(receptor?.numero ? { numeroCedulaReceptor: receptor.numero.slice(0, 20) } : {}),
    mensaje: rejected ? 3 : 1,
    texto: rejected ? REJECTED_TEXT : ACCEPTED_TEXT,
    findings,
    ...(amount(doc.amounts.resumen.TotalImpuesto)
      ? { montoTotalImpuesto: amount(doc.amounts.resumen.TotalImpuesto) }
      : {}),
    totalFactura: amount(doc.amounts.resumen.TotalComprobante) ?? '0',
  };
}

export interface RunVerdictOptions {
  xml: string;
  clave: string;
  checks: readonly VerdictCheck[];
  context: Omit<VerdictContext, 'doc'>;
  sign: ResponseSigner;
  forced?: ForcedVerdict;
}

export async function runVerdict(options: RunVerdictOptions): Promise<VerdictResult> {
  const { forced } = options;
  if (forced?.outcome === 'error') {
    return {
      estado: 'error',
      findings: [{ code: CODES.forzado, text: 'Error forzado por el administrador del sandbox' }],
    };
  }
  let doc: ParsedComprobante;
  try {
    doc = parseComprobante(options.xml);
  } catch (err) {
    if (err instanceof UnprocessableXmlError)
      return { estado: 'error', findings: [{ code: CODES.schema, text: err.message }] };
    throw err;
  }
  let findings: Finding[] = [];
  if (forced?.outcome === 'reject') {
    findings = [
      {
        code: forced.code ?? CODES.forzado,
        text: forced.text ?? 'Rechazo forzado por el administrador del sandbox',
      },
    ];
  } else if (forced?.outcome !== 'accept') {
    const context: VerdictContext = { ...options.context, doc };
    for (const check of options.checks) {
      try {
        findings.push(...(await check.run(context)));
      } catch (err) {
        if (err instanceof UnprocessableXmlError) {
          return { estado: 'error', findings: [...findings, { code: CODES.schema, text: err.message }] };
        }
        throw err;
      }
    }
  }
  const content = buildResponseContent(doc, options.clave, findings);
  return {
    estado: content.mensaje === 1 ? 'aceptado' : 'rechazado',
    findings,
    respuestaXml: options.sign(content),
  };
}
