// docs/performance.md is written by every package's bench, each owning one `## ` section: a run replaces
// its own section (from its heading up to the next `## `) and leaves the others as they are. What people
// wrote under a section about earlier runs (A/B comparisons, what changed a figure and why) is not the
// bench's to rewrite: it sits below the NOTES_MARKER line, which a run keeps with everything after it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const PERFORMANCE_MD = join(resolve(__dirname, '../../..'), 'docs', 'performance.md');

const NEW_FILE =
  "# Performance\n\nBenchmark results; each package's `bench` script rewrites only its own section.\n\n";

/** A section's figures end at this line; the notes from it to the next section survive a bench run. */
export const NOTES_MARKER = '<!-- notes: kept when the bench rewrites this section -->';

/** Replaces the section that starts with the line `heading` (e.g. `## xsd`), or appends it. */
export function writePerformanceSection(heading: string, section: string, file = PERFORMANCE_MD): void {
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : NEW_FILE;
  const body = `${section.trimEnd()}\n`;
  const inside = doc.indexOf(`\n${heading}\n`);
  const start = doc.startsWith(`${heading}\n`) ? 0 : inside < 0 ? -1 : inside + 1;
  if (start < 0) {
    writeFileSync(file, `${doc.trimEnd()}\n\n${body}`);
    return;
  }
  const next = doc.indexOf('\n## ', start + 1);
  const end = next < 0 ? doc.length : next + 1;
  const marker = doc.indexOf(`\n${NOTES_MARKER}\n`, start);
  const notes = marker >= 0 && marker < end ? `\n${doc.slice(marker + 1, end).trimEnd()}\n` : '';
  // A blank line before the next section's heading, however the bench ended its own (a table followed
  // directly by a heading would still render, but the Markdown reads as one block).
  const updated = `${doc.slice(0, start)}${body}${notes}${next < 0 ? '' : `\n${doc.slice(next + 1)}`}`;
  writeFileSync(file, updated);
}
