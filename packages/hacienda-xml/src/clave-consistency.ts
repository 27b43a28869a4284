// Whether a comprobante's clave says what the document says (REFERENCE §2.2): positions 4–9 are FechaEmision's
// date in Costa Rica, 10–21 the issuer's identification padded to 12, 22–41 the NumeroConsecutivo. Hacienda
// refuses a document whose clave disagrees; a receiver must too, or a document could be stored under a clave
// naming another issuer and squat it.
import type { ParsedComprobante } from './comprobante-parse';
import { formatClaveDate, parseIsoDateTime } from './cr-time';

/** Who the clave's identification names: the buyer in an FEC (its issuer and signer), else the Emisor. */
function claveTaxpayer(parsed: ParsedComprobante): string | undefined {
  return parsed.root === 'FacturaElectronicaCompra' ? parsed.receptor?.numero : parsed.emisor.numero;
}

/** What in the clave disagrees with the document, one sentence each; empty when it agrees. */
export function claveMismatches(parsed: ParsedComprobante): string[] {
  const { clave, numeroConsecutivo, fechaEmision } = parsed;
  if (!/^\d{50}$/.test(clave)) return [`the clave ${clave} is not 50 digits`];
  const problems: string[] = [];
  if (clave.slice(21, 41) !== numeroConsecutivo)
    problems.push(
      `the clave's consecutivo ${clave.slice(21, 41)} is not NumeroConsecutivo ${numeroConsecutivo}`,
    );
  const taxpayer = claveTaxpayer(parsed);
  // A foreign identification (type 05, alphanumeric) has no digits the clave could carry.
  if (
    taxpayer !== undefined &&
    /^\d{1,12}$/.test(taxpayer) &&
    clave.slice(9, 21) !== taxpayer.padStart(12, '0')
  )
    problems.push(`the clave names taxpayer ${clave.slice(9, 21)}, not the issuer ${taxpayer}`);
  const instant = parseIsoDateTime(fechaEmision);
  if (!instant) problems.push(`FechaEmision ${fechaEmision} is not a date-time`);
  else if (clave.slice(3, 9) !== formatClaveDate(instant))
    problems.push(
      `the clave's date ${clave.slice(3, 9)} (ddmmyy) is not FechaEmision ${fechaEmision} in Costa Rica (${formatClaveDate(instant)})`,
    );
  return problems;
}
