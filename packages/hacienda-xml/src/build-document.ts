// The public entry point: a client document + the issuer + its cached key → a signed v4.4 comprobante.
// Throws DocumentError (code bad_request) with every issue, never an untyped error for bad input.
import type { SummaryAmounts } from './arithmetic';
import { type CheckedDocument, checkDocument } from './document-check';
import { buildComprobanteXml } from './comprobante-xml';
import { formatCostaRicaDateTime } from './cr-time';
import { DocumentError, type DocumentIssue, HaciendaXmlError } from './errors';
import { Clave, Consecutivo, Identificacion, type Situacion } from './identifiers';
import type { Issuer } from './issuer';
import { formatAmount } from './money';
import type { SigningKey } from './signing-key';
import { signCanonicalDocument } from './xades-sign';

export interface BuildSignedDocumentOptions {
  /** The client's document (body of POST /api/enviar/items); validated here. */
  document: unknown;
  issuer: Issuer;
  key: SigningKey;
  /** SigningTime; default now. */
  now?: Date;
  /** Clave situación, over the document's `situacion`: 1 normal (the default), 2 contingencia, 3 sin internet. */
  situacion?: Situacion;
  /** Fixed security code (tests only); default 8 random digits from the CSPRNG. */
  codigoSeguridad?: string;
}

export interface SignedDocument {
  clave: string;
  consecutivo: string;
  /** Root element name, e.g. FacturaElectronica. */
  tipo: CheckedDocument['tipo'];
  /** FechaEmision as written (Costa Rica time with offset); also the `fecha` of POST /recepcion. */
  fechaEmision: string;
  /** The signed XML (UTF-8 text); send its bytes base64-encoded, never re-indent it. */
  xml: string;
  /** The authoritative totals, formatted with 5 decimals. */
  totals: Record<Exclude<keyof SummaryAmounts, 'totalDesgloseImpuesto'>, string>;
}

function formatTotals(s: SummaryAmounts): SignedDocument['totals'] {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(s))
    if (k !== 'totalDesgloseImpuesto') out[k] = formatAmount(v as never);
  return out as SignedDocument['totals'];
}

/** Validates, computes, builds and signs. Throws DocumentError with all issues when the document is bad. */
export function buildSignedDocument(options: BuildSignedDocumentOptions): SignedDocument {
  const { issuer, key } = options;
  const now = options.now ?? new Date();
  const checked = checkDocument(options.document, { issuer, now });
  if (!checked.ok) throw new DocumentError(checked.issues);
  const doc = checked.value;
  let clave: Clave;
  let consecutivo: Consecutivo;
  try {
    consecutivo = new Consecutivo({
      sucursal: doc.document.sucursal ?? issuer.sucursal ?? 1,
      terminal: doc.document.terminal ?? 1,
      tipo: doc.tipo,
      numero: doc.document.numeroReferencia,
    });
    clave = Clave.generate({
      fechaEmision: doc.fechaEmision,
      emisor: new Identificacion(issuer.tipoIdentificacion, issuer.numeroIdentificacion),
      consecutivo,
      situacion: options.situacion ?? (Number(doc.document.situacion ?? '1') as Situacion),
      ...(options.codigoSeguridad !== undefined ? { codigoSeguridad: options.codigoSeguridad } : {}),
    });
  } catch (err) {
    if (err instanceof HaciendaXmlError) {
      const issues: DocumentIssue[] = [
        { path: err.code === 'invalid_identificacion' ? 'emisor' : '(body)', reason: err.message },
      ];
      throw new DocumentError(issues);
    }
    throw err;
  }
  const parts = buildComprobanteXml(doc, issuer, clave, consecutivo);
  const xml = signCanonicalDocument(parts, key, { now });
  return {
    clave: clave.value,
    consecutivo: consecutivo.value,
    tipo: doc.tipo,
    fechaEmision: formatCostaRicaDateTime(doc.fechaEmision),
    xml,
    totals: formatTotals(doc.summary),
  };
}
