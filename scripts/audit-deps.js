#!/usr/bin/env node
// Dependency audit of the production dependencies (`pnpm audit --prod`), run by CI with AUDIT_REQUIRED=true.
// Fails on any known high or critical advisory. When the audit itself cannot run (the registry refuses the
// audit endpoint, e.g. 405 from a mirror; no network), it says so plainly and:
//   - AUDIT_REQUIRED=true (CI): fails, since "no answer" is not "no advisory";
//   - otherwise (a developer machine): exits 0 with the reason, never printing a pass it did not get.
// AUDIT_LEVEL (default high) sets the lowest failing severity.
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const SEVERITIES = ['info', 'low', 'moderate', 'high', 'critical'];

/**
 * Reads `pnpm audit --json` output. Returns {kind: 'unavailable', reason} when the audit did not run,
 * else {kind: 'report', findings: [{name, severity, title, url, paths}]} at or above `level`.
 */
function evaluateAudit(stdout, level = 'high') {
  let body;
  try {
    body = JSON.parse(stdout);
  } catch {
    return {
      kind: 'unavailable',
      reason: `pnpm audit printed no JSON report: ${String(stdout).slice(0, 200)}`,
    };
  }
  if (body && body.error) {
    const message = String(body.error.message || body.error.code || 'unknown error');
    return { kind: 'unavailable', reason: `${body.error.code || 'error'}: ${message}` };
  }
  if (!body || typeof body.advisories !== 'object' || body.advisories === null)
    return { kind: 'unavailable', reason: 'pnpm audit answered without an advisories section' };
  const floor = SEVERITIES.indexOf(level);
  if (floor < 0) throw new Error(`AUDIT_LEVEL: must be one of ${SEVERITIES.join(', ')}`);
  const findings = Object.values(body.advisories)
    .filter((a) => SEVERITIES.indexOf(String(a.severity)) >= floor)
    .map((a) => ({
      name: a.module_name,
      severity: a.severity,
      title: a.title,
      url: a.url,
      paths: (a.findings || []).flatMap((f) => f.paths || []).slice(0, 5),
    }));
  return { kind: 'report', findings };
}

/** Exit code and lines to print for an evaluation. */
function verdict(result, { required }) {
  if (result.kind === 'unavailable') {
    const lines = [
      `dependency audit: NOT RUN — ${result.reason}`,
      required
        ? 'dependency audit: AUDIT_REQUIRED=true, so this fails (no answer is not a clean bill).'
        : 'dependency audit: skipped (set AUDIT_REQUIRED=true to make this fatal, as CI does).',
    ];
    return { code: required ? 1 : 0, lines };
  }
  if (result.findings.length === 0)
    return {
      code: 0,
      lines: ['dependency audit: no known high or critical advisory in production dependencies'],
    };
  return {
    code: 1,
    lines: [
      `dependency audit: FAILED — ${result.findings.length} advisory(ies) at or above the threshold:`,
      ...result.findings.map(
        (f) =>
          `  ${f.severity} ${f.name}: ${f.title} (${f.url})${f.paths.length ? `\n    via ${f.paths.join(', ')}` : ''}`,
      ),
    ],
  };
}

function main() {
  const required = process.env.AUDIT_REQUIRED === 'true';
  const level = process.env.AUDIT_LEVEL || 'high';
  const run = spawnSync('pnpm', ['audit', '--prod', '--json'], {
    cwd: join(__dirname, '..'),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const result = run.error
    ? { kind: 'unavailable', reason: `could not run pnpm audit: ${run.error.message}` }
    : evaluateAudit(run.stdout || run.stderr, level);
  const { code, lines } = verdict(result, { required });
  for (const line of lines) (code ? process.stderr : process.stdout).write(`${line}\n`);
  process.exitCode = code;
}

module.exports = { evaluateAudit, verdict };
if (require.main === module) main();
