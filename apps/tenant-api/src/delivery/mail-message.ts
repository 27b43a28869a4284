// The e-mail to the receptor (pure): the signed XML, Hacienda's answer and the PDF under the names the
// law's practice expects (`<clave>.xml`, `<clave>_respuesta.xml`, `<clave>.pdf`) and a short Spanish body
// read from the signed XML. The XML attachments are the stored text's UTF-8 bytes, as the downloads serve them.
import { type ComprobanteView, KIND_TITLES, formatDateTime, formatMoney } from '@cr/pdf';
import type { OutgoingMail } from './send-mail';

export interface MailSource {
  /** The document's clave, as its downloads are named. */
  clave: string;
  view: ComprobanteView;
  xml: string;
  respuestaXml: string;
  pdf: Buffer;
}

/** Every address the document itself names: the receptor's (the emisor's in a purchase invoice) and the copias. */
export function documentAddresses(view: ComprobanteView, copias: readonly string[] | null): string[] {
  return [...receptorAddresses(view), ...(copias ?? [])];
}

function receptorAddresses(view: ComprobanteView): string[] {
  return (view.kind === 'FEC' ? view.emisor.correos : view.receptor?.correos) ?? [];
}

/**
 * The counterparty's addresses in the signed XML, then the copias, without repeats (case-insensitive): the
 * receptor's, or in a factura de compra (whose Receptor is the issuer itself) the supplier's, its Emisor.
 */
export function defaultRecipients(view: ComprobanteView, copias: readonly string[] | null): string[] {
  const receptor = receptorAddresses(view);
  if (receptor.length === 0) return [];
  const seen = new Set<string>();
  return [...receptor, ...(copias ?? [])].filter((a) => {
    const key = a.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function composeMail(source: MailSource, to: string[]): OutgoingMail {
  const { view, clave } = source;
  const kind = KIND_TITLES[view.kind];
  const total = formatMoney(view.resumen.totalComprobante, view.resumen.codigoMoneda);
  // A factura de compra is issued by the buyer (its Receptor, the tenant's issuer) and goes to the
  // supplier (its Emisor): the one who sends is the one it goes to in every other kind, and the other way round.
  const purchase = view.kind === 'FEC';
  const sender = (purchase ? view.receptor?.nombre : undefined) ?? view.emisor.nombre;
  const addressee = purchase ? view.emisor.nombre : view.receptor?.nombre;
  // The platform's (or the tenant's) server sends it, but a receptor's answer is for the one who issued
  // the document: its own address in the signed XML.
  const replyTo = (purchase ? view.receptor?.correos : view.emisor.correos)?.[0];
  const greeting = addressee ? `Estimado(a) ${addressee}:` : 'Estimado(a) cliente:';
  const text = [
    greeting,
    '',
    purchase
      ? `${sender} le envía la ${kind.toLowerCase()} ${view.consecutivo} de lo que le compró.`
      : `${sender} le envía su ${kind.toLowerCase()} ${view.consecutivo}.`,
    'El Ministerio de Hacienda aceptó el comprobante.',
    '',
    `Clave: ${clave}`,
    `Fecha de emisión: ${formatDateTime(view.fechaEmision)}`,
    `Total: ${total}`,
    '',
    'Adjuntos:',
    `- ${clave}.xml: el comprobante electrónico firmado`,
    `- ${clave}_respuesta.xml: la respuesta de Hacienda`,
    `- ${clave}.pdf: la representación impresa`,
    '',
    replyTo
      ? `Este correo se generó automáticamente; su respuesta llega a ${sender} (${replyTo}).`
      : 'Este correo se generó automáticamente; por favor no lo responda.',
    '',
  ].join('\n');
  return {
    to,
    subject: `${kind} ${view.consecutivo} de ${sender}`,
    ...(replyTo ? { replyTo } : {}),
    text,
    attachments: [
      { filename: `${clave}.xml`, content: Buffer.from(source.xml, 'utf8'), contentType: 'application/xml' },
      {
        filename: `${clave}_respuesta.xml`,
        content: Buffer.from(source.respuestaXml, 'utf8'),
        contentType: 'application/xml',
      },
      { filename: `${clave}.pdf`, content: source.pdf, contentType: 'application/pdf' },
    ],
  };
}
