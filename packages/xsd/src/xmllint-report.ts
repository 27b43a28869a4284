// What xmllint said about each file of a run. xmllint names every file in its complaints
// (`<file>:<line>: …`), follows a parser error with a context line and a caret line, and ends each
// validated file with `<file> validates` or `<file> fails to validate` (a file that is not well-formed gets
// no verdict line). The files are named by us with random names that no document contains, so a document
// cannot write a line that passes for another's; a line is attributed to a file only when it starts with
// that file's name or continues that file's complaint.

/** Complaints kept per document: what callers show (and what they saw before runs were shared). */
export const MAX_ERRORS = 20;

export interface FileReport {
  verdict: 'validates' | 'fails' | undefined;
  /** xmllint's lines for the file, its name replaced by `line` (`line 3: element Clave: …`). */
  errors: string[];
}

/** Splits stderr into lines as it arrives and attributes each to one of the run's files. */
export class XmllintReport {
  readonly files: Map<string, FileReport>;
  /** Lines that belong to no file (a schema that does not compile, for example). */
  readonly other: string[] = [];
  private current: FileReport | undefined;
  private partial = '';

  constructor(private readonly paths: readonly string[]) {
    this.files = new Map(paths.map((p) => [p, { verdict: undefined, errors: [] }]));
  }

  push(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  end(): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
  }

  private line(raw: string): void {
    const text = raw.trim();
    if (!text) return;
    for (const path of this.paths) {
      if (!text.startsWith(path)) continue;
      const rest = text.slice(path.length);
      const file = this.files.get(path)!;
      if (rest === ' validates' || rest === ' fails to validate') {
        file.verdict = rest === ' validates' ? 'validates' : 'fails';
        this.current = undefined;
        return;
      }
      if (rest.startsWith(':')) {
        this.add(file, `line ${rest.slice(1)}`);
        this.current = file;
        return;
      }
    }
    // Any other line naming one of our files (e.g. one xmllint could not read) is no document's complaint.
    if (this.paths.some((p) => text.includes(p))) {
      this.current = undefined;
      if (this.other.length < MAX_ERRORS) this.other.push(text);
      return;
    }
    if (this.current) this.add(this.current, text);
    else if (this.other.length < MAX_ERRORS) this.other.push(text);
  }

  private add(file: FileReport, text: string): void {
    if (file.errors.length < MAX_ERRORS) file.errors.push(text);
  }
}
