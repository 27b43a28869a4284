// What a received document must say for its receiver to be able to answer it at all. The MensajeReceptor
// repeats the issuer's number (9 to 12 digits) and the document's total and tax (decimals of at most 13
// integer digits and 5 decimals: MensajeReceptor_V4.4.xsd). A document stored with a value the answer cannot
// carry could never be answered, not even rejected, and its deadline notices would run until it passed. No
// real comprobante holds such a value (Hacienda's schemas refuse it), so the upload is refused instead.
import type { ParsedComprobante } from '@cr/hacienda-xml';

const AMOUNT = /^\d{1,13}(\.\d{1,5})?$/;
const CEDULA = /^\d{9,12}$/;
const CURRENCY = /^[A-Z]{3}$/;

/** A value as a message may quote it: long ones cut. */
const quoted = (value: string) => (value.length > 24 ? `${value.slice(0, 24)}…` : value);

/** One sentence per value of `parsed` an answer could not carry (or, for the currency, no document has). */
export function unanswerableValues(parsed: ParsedComprobante): string[] {
  const problems: string[] = [];
  // In an FEC the Emisor is the seller, who may be foreign (type 05, letters allowed); the buyer issued it.
  if (parsed.root !== 'FacturaElectronicaCompra' && !CEDULA.test(parsed.emisor.numero)) {
    problems.push(
      `the Emisor's Numero ${quoted(parsed.emisor.numero)} is not 9 to 12 digits, as an answer must repeat it`,
    );
  }
  if (!AMOUNT.test(parsed.totalComprobante)) {
    problems.push(
      `TotalComprobante ${quoted(parsed.totalComprobante)} has more than 13 integer digits or 5 decimals, more than an answer carries`,
    );
  }
  if (parsed.totalImpuesto !== undefined && !AMOUNT.test(parsed.totalImpuesto)) {
    problems.push(
      `TotalImpuesto ${quoted(parsed.totalImpuesto)} is not a decimal of at most 13 integer digits and 5 decimals, as an answer carries`,
    );
  }
  if (parsed.codigoMoneda && !CURRENCY.test(parsed.codigoMoneda)) {
    problems.push(`CodigoMoneda ${quoted(parsed.codigoMoneda)} is not an ISO 4217 code`);
  }
  return problems;
}
