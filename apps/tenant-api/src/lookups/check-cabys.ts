// Before a document is signed, every CABYS code it names must be in Hacienda's catalogue: each line's
// CodigoCABYS and each surtido component's CodigoCABYSSurtido. Hacienda rejects a code that is not (REFERENCE
// §9.4, −400), and by then the document's consecutivo is spent (ADR 0066). A code of the local catalogue (the
// one the CABYS search loaded) passes at once, without a call or an await; any other is asked of Hacienda's
// /fe/cabys?codigo=, and only Hacienda's answer that the code does not exist is an issue, with the exact path
// of the field. What cannot be asked (Hacienda unreachable, paused or busy, the tenant's window of lookups
// used up, the document's share of requests spent) passes, and Hacienda judges it as it did before.
import type { CabysSearch } from '@cr/cabys';
import type { DocumentRequest, ValidationIssue } from '@cr/contracts';
import type { CabysItem, HaciendaPublicApi, PublicResult } from '@cr/hacienda-client';
import { AppError, type Logger } from '@cr/service-kit';

/** What the check needs of the Hacienda client: `hacienda.publicApi` satisfies it. */
export type CabysLookup = Pick<HaciendaPublicApi, 'cabysByCodigo'>;

/** What the check needs of the local catalogue: the tenant-api's CABYS search's exact-code test. */
type LocalCabys = Pick<CabysSearch, 'has'>;

export interface CabysCheckDeps {
  /** A code it has passes without asking Hacienda. */
  local: LocalCabys;
  /** Hacienda's /fe/cabys?codigo= as one tenant's submission asks it (its lane and its window). */
  lookupFor(tenantId: string): CabysLookup;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/**
 * Requests that may reach Hacienda for one document's codes; the others are answered from the client's cache
 * or left to Hacienda. The service's bucket sends 5 at once and then 2 a second, and each request takes a slot
 * of the tenant's window: a document full of codes the local catalogue lacks (or a service without one) would
 * otherwise wait for tens of seconds and spend the window its lookups need.
 */
export const MAX_CABYS_REQUESTS = 5;

/** A lookup the check chose not to send: its share is spent, or an earlier lookup of the document failed. */
class NotSent extends Error {}

interface Unknown {
  code: string;
  path: string;
}

/** The codes the local catalogue lacks with the path of each field naming one, in document order. */
function unknownLocally(document: DocumentRequest, local: LocalCabys): Unknown[] | undefined {
  let unknown: Unknown[] | undefined;
  const lines = document.detalleServicio;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // A line without CABYS (a payment receipt's, a financial credit note's) has nothing to check.
    if (line.codigo !== undefined && !local.has(line.codigo)) {
      unknown ??= [];
      unknown.push({ code: line.codigo, path: `detalleServicio[${i}].codigo` });
    }
    const parts = line.detalleSurtido;
    if (parts === undefined) continue;
    for (let k = 0; k < parts.length; k++) {
      const code = parts[k]!.codigo;
      if (local.has(code)) continue;
      unknown ??= [];
      unknown.push({ code, path: `detalleServicio[${i}].detalleSurtido[${k}].codigo` });
    }
  }
  return unknown;
}

/**
 * The document's codes missing from Hacienda's catalogue, as issues. Undefined, synchronously, when the local
 * catalogue has every code: the common case costs a binary search per code and nothing else.
 */
export function checkCabys(
  input: { tenantId: string; document: DocumentRequest },
  deps: CabysCheckDeps,
): Promise<ValidationIssue[]> | undefined {
  const unknown = unknownLocally(input.document, deps.local);
  return unknown && askHacienda(input.tenantId, unknown, deps);
}

async function askHacienda(
  tenantId: string,
  unknown: Unknown[],
  deps: CabysCheckDeps,
): Promise<ValidationIssue[]> {
  const lookup = deps.lookupFor(tenantId);
  let requests = 0;
  let failure: unknown;
  // Runs only when the answer is not cached: a cached answer is always used, even after a failure.
  const beforeRequest = async () => {
    if (failure !== undefined || requests >= MAX_CABYS_REQUESTS) throw new NotSent();
    requests += 1;
  };
  const refused = new Set<string>();
  const unasked: string[] = [];
  let malformed = false;
  // One code at a time, as the exoneration check: a tenant's submissions in progress bound its urgent lookups.
  for (const code of new Set(unknown.map((u) => u.code))) {
    let answer: PublicResult<CabysItem>;
    try {
      answer = await lookup.cabysByCodigo(code, { beforeRequest });
    } catch (err) {
      if (!(err instanceof NotSent)) failure ??= err;
      unasked.push(code);
      continue;
    }
    if (answer.kind === 'invalid') {
      // Hacienda refused the question (a 400), which says nothing about the code.
      malformed = true;
      unasked.push(code);
    } else if (answer.kind === 'notFound' || answer.value.codigo !== code) {
      refused.add(code);
    }
  }
  if (unasked.length > 0) {
    reportUnasked(deps.logger, { tenantId, codes: unasked, failure, malformed });
  }
  const issues: ValidationIssue[] = [];
  for (const { code, path } of unknown) {
    if (refused.has(code)) issues.push({ path, reason: `CABYS ${code} is not in Hacienda's catalogue` });
  }
  return issues;
}

/**
 * A warning when Hacienda could not answer; only a line of information when the tenant's own limits (its
 * window of lookups, the document's share of requests) kept the codes from being asked.
 */
function reportUnasked(
  logger: CabysCheckDeps['logger'],
  what: { tenantId: string; codes: string[]; failure: unknown; malformed: boolean },
): void {
  const { tenantId, codes, failure, malformed } = what;
  const message =
    'CABYS codes not in the local catalogue were not confirmed with Hacienda; Hacienda will judge them';
  const limited = failure instanceof AppError && failure.code === 'too_many_requests';
  const cause =
    failure !== undefined
      ? failure instanceof Error
        ? failure.message
        : String(failure)
      : malformed
        ? "Hacienda's public API refused the lookup as malformed"
        : `more than ${MAX_CABYS_REQUESTS} codes to ask in one document`;
  if ((failure !== undefined && !limited) || malformed) logger.warn(message, { tenantId, codes, cause });
  else logger.info(message, { tenantId, codes, cause });
}
