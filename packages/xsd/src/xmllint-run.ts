// One xmllint process over several files against one schema. The command line holds only paths we made
// (the schema and the documents' random names), never input; stdout is not read (--noout) and stderr is
// attributed file by file as it arrives, within a byte bound.
import { spawn } from 'node:child_process';
import { XmllintReport } from './xmllint-report';

/** Stderr parsed per run; past it the run's remaining lines are drained unread. */
const MAX_STDERR = 1024 * 1024;

export interface XmllintRun {
  report: XmllintReport;
  code: number | null;
  /** Killed at the time limit. */
  killed: boolean;
  /** Stderr went past MAX_STDERR: lines after it were not attributed. */
  truncated: boolean;
}

export function runXmllint(
  schemaPath: string,
  paths: readonly string[],
  timeoutMs: number,
): Promise<XmllintRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('xmllint', ['--noout', '--nonet', '--schema', schemaPath, ...paths], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const report = new XmllintReport(paths);
    let bytes = 0;
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (bytes >= MAX_STDERR) return;
      bytes += chunk.length;
      report.push(chunk);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      report.end();
      resolve({ report, code, killed, truncated: bytes >= MAX_STDERR });
    });
  });
}
