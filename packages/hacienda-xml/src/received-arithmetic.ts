// The §9 arithmetic a receiver can check on a supplier's signed comprobante without the supplier's inputs:
// the same verification the sandbox judges with (verifyComprobanteArithmetic, every tax of Nota 8), on the
// document's own values. Works on any v4.4 root; returns the mismatches, never throws.
import type { Document } from '@xmldom/xmldom';
import { readComprobanteAmounts } from './comprobante-amounts';
import { type ArithmeticMismatch, verifyComprobanteArithmetic } from './comprobante-arithmetic';
import { parseXml } from './parse-xml';

/** `doc`: the caller's own parseXml of this very `xml`, when it has one (only read). */
export function checkReceivedArithmetic(xml: string, doc?: Document): ArithmeticMismatch[] {
  const parsed = doc ? { doc } : parseXml(xml);
  if ('error' in parsed || !parsed.doc.documentElement) return [];
  return verifyComprobanteArithmetic(readComprobanteAmounts(parsed.doc.documentElement as never));
}
