// The one error type the public entry points throw for a bad document: every issue at once, with paths.
export interface DocumentIssue {
  /** Dotted JSON path of the offending field, e.g. `detalleServicio[0].impuesto[0].tarifa`. */
  path: string;
  reason: string;
  /** The value the engine computed, for amount mismatches. */
  expected?: string;
}

export class DocumentError extends Error {
  readonly code = 'bad_request' as const;
  readonly issues: DocumentIssue[];

  constructor(issues: DocumentIssue[], message?: string) {
    super(message ?? issues.map((i) => `${i.path}: ${i.reason}`).join('; '));
    this.name = 'DocumentError';
    this.issues = issues;
  }
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
