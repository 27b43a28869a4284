// The one error type the public entry points throw for a bad document: its issues with paths, at most
// MAX_LISTED_DOCUMENT_ISSUES of them and a count of the rest, as the contract's validation lists them
// (@cr/contracts' MAX_LISTED_ISSUES and describeIssues; a test keeps the two equal). Not imported from there:
// every module of the engine reaches this file (signing-key.ts for HaciendaXmlError), and the .p12 worker's
// bundle would then carry ajv and every schema (ADR 0027's addendum: 13.5 KB, not 130).

/** At most this many issues are listed in a DocumentError (the rest are counted in `more`). */
export const MAX_LISTED_DOCUMENT_ISSUES = 50;

export interface DocumentIssue {
  /** Dotted JSON path of the offending field, e.g. `detalleServicio[0].impuesto[0].tarifa`. */
  path: string;
  reason: string;
  /** The value the engine computed, for amount mismatches. */
  expected?: string;
}

export class DocumentError extends Error {
  readonly code = 'bad_request' as const;
  /** The first MAX_LISTED_DOCUMENT_ISSUES issues found. */
  readonly issues: DocumentIssue[];
  /** How many more were found and left out of `issues` and the message. */
  readonly more: number;

  constructor(issues: DocumentIssue[], message?: string) {
    // A body within the size limit can still hold tens of thousands of problems (9 lines of 1,000 taxes
    // each made 27,018): listing them all made a 2 MB message, a 4.6 MB answer and a 2 MB log line. The
    // message is built from the listed ones only.
    const listed =
      issues.length > MAX_LISTED_DOCUMENT_ISSUES ? issues.slice(0, MAX_LISTED_DOCUMENT_ISSUES) : issues;
    const more = issues.length - listed.length;
    super(message ?? describe(listed, more));
    this.name = 'DocumentError';
    this.issues = listed;
    this.more = more;
  }
}

/** `path: reason` of each listed issue, then how many more: @cr/contracts' describeIssues. */
function describe(listed: DocumentIssue[], more: number): string {
  const text = listed.map((i) => `${i.path}: ${i.reason}`).join('; ');
  return more > 0 ? `${text}; … and ${more.toLocaleString('en-US')} more` : text;
}

/** Errors raised by signing-key, signature and message handling (not the document's content). */
export class HaciendaXmlError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HaciendaXmlError';
    this.code = code;
  }
}
