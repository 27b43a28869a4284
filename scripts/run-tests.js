#!/usr/bin/env node
// `pnpm test`: runs every package's tests through turbo (one package at a time: two cores, one shared
// PostgreSQL), then prints one closing line for the whole repository, e.g. "tests: 412 passed, 0 failed".
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { stripVTControlCharacters } = require('node:util');

const root = join(__dirname, '..');
const resultFiles = () =>
  ['apps', 'packages']
    .flatMap((dir) =>
      existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((p) => join(root, dir, p)) : [],
    )
    .map((p) => join(p, '.jest-results.json'))
    .filter((f) => existsSync(f));

for (const f of resultFiles()) rmSync(f);

const extra = process.argv.slice(2);
const run = spawnSync('pnpm', ['exec', 'turbo', 'run', 'test', '--concurrency=1', '--continue', ...extra], {
  cwd: root,
  stdio: 'inherit',
});

/** The assertion's gist (its Expected/Received lines, or its first line), short enough for a summary. */
const why = (message) => {
  if (!message) return '';
  // jest's messages carry ANSI colour codes.
  const lines = stripVTControlCharacters(message)
    .split('\n')
    .map((l) => l.trim());
  const gist = lines.filter((l) => /^(Expected|Received)/.test(l)).slice(0, 2);
  return ` — ${(gist.length ? gist.join('; ') : lines[0]).slice(0, 240)}`;
};

let passed = 0;
let failed = 0;
let skipped = 0;
const failedSuites = [];
const failedTests = [];
for (const f of resultFiles()) {
  const r = JSON.parse(readFileSync(f, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  for (const s of r.testResults ?? []) {
    if (s.status !== 'failed') continue;
    const suite = s.name.replace(`${root}/`, '');
    failedSuites.push(suite);
    // A suite that failed before its tests ran (a syntax error, a hook) has no failed assertion to name.
    const titles = (s.assertionResults ?? [])
      .filter((a) => a.status === 'failed')
      .map((a) => `${a.fullName}${why(a.failureMessages?.[0])}`);
    for (const title of titles.length ? titles : [`(suite) ${s.message?.split('\n')[0] ?? ''}`])
      failedTests.push(`${suite}: ${title}`);
  }
}
const engine = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite';
process.stdout.write(`\nDatabase engine: ${engine}\n`);
if (failedTests.length) process.stdout.write(`Failed:\n  ${failedTests.join('\n  ')}\n`);
const code = run.status ?? 1;
if (code !== 0 && failed === 0) failed = Math.max(1, failedSuites.length);
process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
if (process.env.TEST_SUMMARY_FILE) {
  require('node:fs').appendFileSync(
    process.env.TEST_SUMMARY_FILE,
    `${JSON.stringify({ engine, passed, failed, skipped, code, failedTests })}\n`,
  );
}
process.exit(code);
