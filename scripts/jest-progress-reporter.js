// A jest reporter for CI logs, beside the default one. Jest names a test file only once it has finished, so a
// file that hangs leaves no trace of itself in a log cut short by CI's time limit: this one prints each file
// as it starts, and each test that took longer than SLOW_TEST_MS, so the last lines say where a run stopped.
const { relative } = require('node:path');

const SLOW_TEST_MS = 20000;

class ProgressReporter {
  /** @param {{ rootDir: string }} globalConfig */
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  /** @param {{ path: string }} test */
  onTestFileStart(test) {
    process.stderr.write(`starts ${relative(this.rootDir, test.path)} (${new Date().toISOString()})\n`);
  }

  /** @param {{ path: string }} test @param {{ fullName: string, duration?: number | null }} result */
  onTestCaseResult(test, result) {
    if ((result.duration ?? 0) < SLOW_TEST_MS) return;
    const seconds = ((result.duration ?? 0) / 1000).toFixed(1);
    process.stderr.write(
      `slow test (${seconds} s): ${relative(this.rootDir, test.path)}: ${result.fullName}\n`,
    );
  }

  getLastError() {
    return undefined;
  }
}

module.exports = ProgressReporter;
