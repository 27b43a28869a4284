// node --test scripts/audit-deps.test.js (CI runs it before the audit itself).
// Attack: a production dependency with a known high advisory ships unnoticed, or an audit that could not
// run is read as a pass. Both are refused.
const test = require('node:test');
const assert = require('node:assert/strict');
const { evaluateAudit, verdict } = require('./audit-deps');

const report = (severity) =>
  JSON.stringify({
    advisories: {
      1: {
        module_name: 'jsonwebtoken',
        severity,
        title: 'signature bypass',
        url: 'https://github.com/advisories/GHSA-xxxx',
        findings: [{ paths: ['apps/auth-server>jsonwebtoken'] }],
      },
    },
    metadata: {},
  });

test('a high advisory in a production dependency fails the audit', () => {
  const r = verdict(evaluateAudit(report('high')), { required: false });
  assert.equal(r.code, 1);
  assert.match(r.lines.join('\n'), /FAILED.*\n.*high jsonwebtoken: signature bypass/);
});

test('a critical advisory fails; a moderate one does not at the default level', () => {
  assert.equal(verdict(evaluateAudit(report('critical')), { required: true }).code, 1);
  assert.equal(verdict(evaluateAudit(report('moderate')), { required: true }).code, 0);
  assert.equal(verdict(evaluateAudit(report('moderate'), 'moderate'), { required: true }).code, 1);
});

test('a registry that refuses the audit endpoint (405) is reported as not run, fatal only when required', () => {
  const refused = JSON.stringify({
    error: {
      code: 'ERR_PNPM_AUDIT_BAD_RESPONSE',
      message:
        'The audit endpoint (at https://registry.npmjs.org/-/npm/v1/security/audits/quick) responded with 405',
    },
  });
  const local = verdict(evaluateAudit(refused), { required: false });
  assert.equal(local.code, 0);
  assert.match(local.lines[0], /NOT RUN — ERR_PNPM_AUDIT_BAD_RESPONSE: .*405/);
  assert.doesNotMatch(local.lines.join('\n'), /no known/);
  assert.equal(verdict(evaluateAudit(refused), { required: true }).code, 1);
  assert.equal(verdict(evaluateAudit('not json'), { required: true }).code, 1);
});

test('a clean report passes', () => {
  const clean = JSON.stringify({ advisories: {}, metadata: {} });
  assert.deepEqual(verdict(evaluateAudit(clean), { required: true }), {
    code: 0,
    lines: ['dependency audit: no known high or critical advisory in production dependencies'],
  });
});
