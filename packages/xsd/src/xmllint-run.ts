// One xmllint process over several files against one schema. The command line holds only paths we made
// (the schema and the documents' random names), never input; stdout is not read (--noout) and stderr is
// attributed file by file, within a byte bound: read from a file once the launcher's run has ended, or from
// the pipe as it arrives when this process starts xmllint itself.
import { spawn } from 'node:child_process';
import { open, rm } from 'node:fs/promises';
import { launchXmllint, launchable, launcherAvailable } from './xmllint-launcher';
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

/**
 * One run, started by the long-lived launcher when there is one (xmllint-launcher.ts: no fork of this
 * process per run), else by this process. Either way the same report and flags.
 */
export async function runXmllint(
  schemaPath: string,
  paths: readonly string[],
  timeoutMs: number,
): Promise<XmllintRun> {
  // The stderr file sits beside the documents, in the validator's private directory, under a name made
  // from the first document's random one.
  const stderrPath = `${paths[0]}.stderr`;
  if ((await launcherAvailable()) && launchable([schemaPath, stderrPath, ...paths])) {
    return launchedRun(schemaPath, paths, stderrPath, timeoutMs);
  }
  return spawnedRun(schemaPath, paths, timeoutMs);
}

async function launchedRun(
  schemaPath: string,
  paths: readonly string[],
  stderrPath: string,
  timeoutMs: number,
): Promise<XmllintRun> {
  try {
    const launched = await launchXmllint(schemaPath, paths, stderrPath, timeoutMs);
    const report = new XmllintReport(paths);
    const file = await open(stderrPath, 'r');
    let size: number;
    try {
      size = (await file.stat()).size;
      const buffer = Buffer.alloc(Math.min(size, MAX_STDERR));
      await file.read(buffer, 0, buffer.length, 0);
      report.push(buffer.toString('utf8'));
    } finally {
      await file.close();
    }
    report.end();
    return {
      report,
      code: launched.code,
      killed: launched.killed,
      truncated: size >= MAX_STDERR || launched.overflowed,
    };
  } finally {
    await rm(stderrPath, { force: true }).catch(() => {});
  }
}

/** xmllint started by this process (no launcher, or a path a request line cannot carry). */
export function spawnedRun(
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
