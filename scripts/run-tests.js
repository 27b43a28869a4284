#!/usr/bin/env node
// `pnpm test`: runs every package's tests through turbo (one package at a time: two cores, one shared
// PostgreSQL), then prints one closing line for the whole repository, e.g. "tests: 412 passed, 0 failed".
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

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

let passed = 0;
let failed = 0;
let skipped = 0;
const failedSuites = [];
for (const f of resultFiles()) {
  const r = JSON.parse(readFileSync(f, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  for (const s of r.testResults ?? [])
    if (s.status === 'failed') failedSuites.push(s.name.replace(root + '/', ''));
}
const engine = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite';
process.stdout.write(`\nDatabase engine: ${engine}\n`);
if (failedSuites.length) process.stdout.write(`Failed suites:\n  ${failedSuites.join('\n  ')}\n`);
const code = run.status ?? 1;
if (code !== 0 && failed === 0) failed = Math.max(1, failedSuites.length);
process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
if (process.env.TEST_SUMMARY_FILE) {
  require('node:fs').appendFileSync(
    process.env.TEST_SUMMARY_FILE,
    `${JSON.stringify({ engine, passed, failed, skipped, code })}\n`,
  );
}
process.exit(code);
