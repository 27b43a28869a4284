// One bench's section replaced, the others kept; a new section appended.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOTES_MARKER, writePerformanceSection } from './performance-doc';

describe('writePerformanceSection', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perf-doc-'));
  const file = join(dir, 'performance.md');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces only its own section, keeps a blank line before the next, appends a new one, and never matches a longer heading', () => {
    writeFileSync(file, '# Performance\n\n## xsd extra\n\nkeep 1\n\n## xsd\n\nold\n\n## pdf\n\nkeep 2\n');
    writePerformanceSection('## xsd', '## xsd\n\n| new | figures |\n', file);
    expect(readFileSync(file, 'utf8')).toBe(
      '# Performance\n\n## xsd extra\n\nkeep 1\n\n## xsd\n\n| new | figures |\n\n## pdf\n\nkeep 2\n',
    );
    writePerformanceSection('## xsd', '## xsd\n\nnewer figures\n\n\n', file);
    writePerformanceSection('## pdf', '## pdf\n\nnewer', file);
    expect(readFileSync(file, 'utf8')).toBe(
      '# Performance\n\n## xsd extra\n\nkeep 1\n\n## xsd\n\nnewer figures\n\n## pdf\n\nnewer\n',
    );
    writePerformanceSection('## cabys', '## cabys\n\nfirst\n', file);
    expect(readFileSync(file, 'utf8').endsWith('newer\n\n## cabys\n\nfirst\n')).toBe(true);
  });

  it('keeps the notes below its marker, in the section it rewrites only, and the next section after them', () => {
    const notes = `${NOTES_MARKER}\n\nA/B on an earlier day: 1 → 2.\n`;
    writeFileSync(
      file,
      `# Performance\n\n## xsd\n\nold figures\n\n${notes}\n## pdf\n\npdf figures\n\n${NOTES_MARKER}\n\npdf notes\n`,
    );
    writePerformanceSection('## xsd', '## xsd\n\nnew figures\n', file);
    expect(readFileSync(file, 'utf8')).toBe(
      `# Performance\n\n## xsd\n\nnew figures\n\n${notes}\n## pdf\n\npdf figures\n\n${NOTES_MARKER}\n\npdf notes\n`,
    );
    writePerformanceSection('## pdf', '## pdf\n\nnew pdf figures', file);
    expect(readFileSync(file, 'utf8')).toBe(
      `# Performance\n\n## xsd\n\nnew figures\n\n${notes}\n## pdf\n\nnew pdf figures\n\n${NOTES_MARKER}\n\npdf notes\n`,
    );
    // A section without a marker has no notes: another section's marker is not taken for its own.
    writeFileSync(file, `## xsd\n\nold\n\n## pdf\n\nfigures\n\n${NOTES_MARKER}\n\npdf notes\n`);
    writePerformanceSection('## xsd', '## xsd\n\nnew\n', file);
    expect(readFileSync(file, 'utf8')).toBe(
      `## xsd\n\nnew\n\n## pdf\n\nfigures\n\n${NOTES_MARKER}\n\npdf notes\n`,
    );
  });
});
