// Before a document is signed, every line tax exonerated by a Hacienda authorization of type 04 or 11
// (REFERENCE §7.5: "Exenciones DGH", checked by Hacienda against its records) is checked with /fe/ex: the
// authorization exists, is in force at the document's date (issued on or before its Costa Rica day, not yet
// expired), was granted to the receptor, covers the line's CABYS code (when it lists codes), and the
// exonerated percentage does not exceed the authorized one; the issue date and type must match it too. Each
// failure is an issue with the exact path of the field. Hacienda being unreachable is not an issue of the
// document: the HaciendaUpstreamError (502) propagates.
import { type DocumentRequest, type ValidationIssue, impuestoPath, lineImpuestos } from '@cr/contracts';
import type { Exoneration, HaciendaPublicApi, PublicResult } from '@cr/hacienda-client';
import { costaRicaDate, parseIsoDateOrDateTime, parseIsoDateTime } from '@cr/hacienda-xml';
import { expiryOf, isInForce, issueDayOf, normaliseExonerationNumber } from './exoneration';

/** What the check needs of the Hacienda client: `hacienda.publicApi` satisfies it. */
export type ExonerationLookup = Pick<HaciendaPublicApi, 'exoneration'>;

/** TipoDocumentoEX1 codes whose authorizations Hacienda verifies against its records. */
export const CHECKED_EXONERATION_TYPES: ReadonlySet<string> = new Set(['04', '11']);

const hundredths = (n: number) => Math.round(n * 100);
const sameId = (a: string, b: string) => a.replace(/^0+/, '') === b.replace(/^0+/, '');

export async function checkExonerations(
  input: { document: DocumentRequest; receptorId?: string; now: Date },
  client: ExonerationLookup,
): Promise<ValidationIssue[]> {
  const { document } = input;
  const receptorId =
    input.receptorId ?? (document.receptor ? document.receptor.identificacion.numero : undefined);
  const documentDate = parseIsoDateTime(document.fechaEmision) ?? input.now;
  const documentDay = costaRicaDate(documentDate);
  // One lookup per authorization even when many lines use it.
  const lookups = new Map<string, Promise<PublicResult<Exoneration>>>();
  const lookUp = (numero: string) => {
    let p = lookups.get(numero);
    if (!p) {
      p = client.exoneration(numero);
      lookups.set(numero, p);
    }
    return p;
  };

  const issues: ValidationIssue[] = [];
  for (const [i, line] of document.detalleServicio.entries()) {
    for (const [j, tax] of lineImpuestos(line).entries()) {
      const ex = tax.exoneracion;
      if (!ex || !CHECKED_EXONERATION_TYPES.has(ex.tipoDocumento)) continue;
      const base = `${impuestoPath(line, `detalleServicio[${i}]`, j)}.exoneracion`;
      const numero = normaliseExonerationNumber(ex.numeroDocumento);
      if (!numero) {
        issues.push({
          path: `${base}.numeroDocumento`,
          reason: `is not a Hacienda authorization number (two letters, 8 digits, 2 digits, e.g. AL-00020402-24), as type ${ex.tipoDocumento} requires`,
        });
        continue;
      }
      const found = await lookUp(numero);
      if (found.kind === 'notFound') {
        issues.push({
          path: `${base}.numeroDocumento`,
          reason: `${numero} does not exist in Hacienda's records`,
        });
        continue;
      }
      if (found.kind === 'invalid') {
        issues.push({
          path: `${base}.numeroDocumento`,
          reason: `${numero} is refused by Hacienda as malformed`,
        });
        continue;
      }
      const auth = found.value;
      const issued = issueDayOf(auth);
      if (!isInForce(auth, documentDate)) {
        const expiry = expiryOf(auth);
        issues.push({
          path: `${base}.numeroDocumento`,
          reason: expiry
            ? `${numero} expired on ${auth.fechaVencimiento}, before the document date ${documentDay}`
            : `${numero} has no expiry date in Hacienda's records, so it cannot be shown to be in force`,
        });
      } else if (issued && documentDay < issued) {
        // In force from its issue day on (Costa Rica days, as the client's FechaEmisionEX is compared): a
        // document of an earlier day is not covered, whatever FechaEmisionEX the client wrote.
        issues.push({
          path: `${base}.numeroDocumento`,
          reason: `${numero} was issued on ${issued}, after the document date ${documentDay}, so it was not yet in force`,
        });
      }
      if (!receptorId) {
        issues.push({
          path: 'receptor',
          reason: `is required: exoneration ${numero} (type ${ex.tipoDocumento}) is granted to ${auth.identificacion}`,
        });
      } else if (!sameId(auth.identificacion, receptorId)) {
        issues.push({
          path: `${base}.numeroDocumento`,
          reason: `${numero} is granted to ${auth.identificacion}, not to the receptor ${receptorId}`,
        });
      }
      if ((auth.poseeCabys || auth.cabys.length > 0) && !auth.cabys.includes(line.codigo ?? '')) {
        issues.push({
          path: `detalleServicio[${i}].codigo`,
          reason: `CABYS ${line.codigo} is not among the codes exoneration ${numero} covers (${auth.cabys.join(', ') || 'none'})`,
        });
      }
      if (auth.porcentajeExoneracion === undefined) {
        issues.push({
          path: `${base}.porcentajeExoneracion`,
          reason: `${numero} has no authorized percentage in Hacienda's records`,
        });
      } else if (hundredths(ex.porcentajeExoneracion) > hundredths(auth.porcentajeExoneracion)) {
        issues.push({
          path: `${base}.porcentajeExoneracion`,
          reason: `${ex.porcentajeExoneracion} exceeds the ${auth.porcentajeExoneracion} authorized by ${numero}`,
        });
      }
      const authorizedType = auth.tipoDocumento?.codigo;
      if (authorizedType && authorizedType !== ex.tipoDocumento) {
        issues.push({
          path: `${base}.tipoDocumento`,
          reason: `must be ${authorizedType}, the type of ${numero} in Hacienda's records`,
        });
      }
      const given = parseIsoDateOrDateTime(ex.fechaEmision);
      if (issued && (!given || costaRicaDate(given) !== issued)) {
        issues.push({
          path: `${base}.fechaEmision`,
          reason: `must be the issue date of ${numero}, ${issued}`,
        });
      }
    }
  }
  return issues;
}
