// The CABYS catalogue as the rest of the platform sees it, and its JSON layout
// (`[{id, description, tax_percent}]`, tax as a fraction: 0.13 = 13 %), read and written.

/** One CABYS code. `impuesto` is the usual VAT rate as a percentage (13, 4, 2, 1, 0), a hint the user may override. */
export interface CabysItem {
  codigo: string;
  descripcion: string;
  impuesto: number;
}

/** One entry of the catalogue; `categorias` (broad → specific) only when the source file has them (the BCCR xlsx). */
export interface CabysEntry extends CabysItem {
  categorias?: string[];
}

/** A catalogue file that cannot be used; the message names the row or entry and the field. */
export class CabysImportError extends Error {
  readonly issues: string[];

  constructor(message: string, issues: string[] = []) {
    super(issues.length ? `${message}: ${issues.join('; ')}` : message);
    this.name = 'CabysImportError';
    this.issues = issues;
  }
}

export const CABYS_CODE = /^[0-9]{13}$/;
const MAX_ISSUES = 10;

/**
 * A fraction (0.13) → percentage (13). Rounded to two decimals so binary floating point (0.13 * 100 =
 * 13.000000000000002) never leaks into the API; CABYS rates are whole percentages.
 */
export function fractionToPercent(fraction: number): number {
  return Math.round(fraction * 10_000) / 100;
}

/** Percentage (13) → fraction (0.13), for writing the JSON layout. */
export function percentToFraction(percent: number): number {
  return Math.round(percent * 100) / 10_000;
}

/** Collects problems and stops early so a wholly wrong file does not produce 20,000 messages. */
export class IssueList {
  readonly items: string[] = [];
  add(issue: string): void {
    if (this.items.length < MAX_ISSUES) this.items.push(issue);
  }
  get full(): boolean {
    return this.items.length >= MAX_ISSUES;
  }
}

/** Checks the assembled entries as a whole: at least one, no code twice. */
export function checkEntries(entries: CabysEntry[], what: string, issues: IssueList): void {
  const seen = new Map<string, number>();
  entries.forEach((e, i) => {
    const first = seen.get(e.codigo);
    if (first !== undefined) issues.add(`${what} ${i}: code ${e.codigo} already appears at ${first}`);
    else seen.set(e.codigo, i);
  });
  if (entries.length === 0 && issues.items.length === 0) issues.add('the file holds no CABYS code');
}

/** Parses and validates the JSON layout. Throws `CabysImportError` naming each bad entry (the first ten). */
export function parseCabysJson(text: string): CabysEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new CabysImportError(`not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(data)) {
    throw new CabysImportError('expected a JSON array of {id, description, tax_percent}');
  }
  const issues = new IssueList();
  const entries: CabysEntry[] = [];
  for (let i = 0; i < data.length && !issues.full; i++) {
    const raw: unknown = data[i];
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      issues.add(`entry ${i}: is not an object`);
      continue;
    }
    const { id, description, tax_percent: tax } = raw as Record<string, unknown>;
    const bad: string[] = [];
    if (typeof id !== 'string' || !CABYS_CODE.test(id)) bad.push('id: must be a string of 13 digits');
    if (typeof description !== 'string' || description.trim() === '') {
      bad.push('description: must be a non-empty string');
    }
    if (typeof tax !== 'number' || !Number.isFinite(tax) || tax < 0 || tax > 1) {
      bad.push('tax_percent: must be a fraction between 0 and 1 (0.13 = 13 %)');
    }
    if (bad.length) {
      for (const b of bad) issues.add(`entry ${i}: ${b}`);
      continue;
    }
    entries.push({
      codigo: id as string,
      descripcion: (description as string).trim(),
      impuesto: fractionToPercent(tax as number),
    });
  }
  checkEntries(entries, 'entry', issues);
  if (issues.items.length) throw new CabysImportError('invalid CABYS JSON', issues.items);
  return entries;
}

/** Writes entries in the JSON layout, the form an imported copy is kept in. */
export function serializeCabysJson(entries: readonly CabysItem[]): string {
  const rows = entries.map((e) => ({
    id: e.codigo,
    description: e.descripcion,
    tax_percent: percentToFraction(e.impuesto),
  }));
  return `${JSON.stringify(rows)}\n`;
}
