// xmllint started by a small long-lived bash instead of by this process. Starting a process from Node forks
// it, and the fork copies this process's page tables: measured for a bare `spawn('true')`, 1.2 ms of CPU
// from an 87 MB process, 8.4 ms from 327 MB and 23 ms from 1 GB, on the event loop, for every run. A bash
// of a few MB forks xmllint for a fraction of that; this process starts the bash once and then only writes
// it a line per run.
//
// The script is fixed text. Each request is one line of tab-separated fields that are all ours: a run
// number, the time limit in seconds, the schema's path, the file xmllint's stderr goes to and the
// documents' paths (random names in the validator's private directory); a path holding a tab or a newline
// is never sent (the caller starts xmllint itself then). `timeout -s KILL` enforces the time limit in the
// launcher, and `ulimit -f` bounds the stderr file (xmllint is stopped by SIGXFSZ past it). The launcher
// answers `<run> <exit status>` on stdout once xmllint has ended.
import { type ChildProcessByStdio, execFile, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** The stderr file's bound, in 1 KiB blocks (ulimit -f). */
export const STDERR_FILE_KIB = 8 * 1024;

const SCRIPT = `ulimit -f ${STDERR_FILE_KIB}
while IFS=$'\\t' read -r -a req; do
  timeout -s KILL "\${req[1]}" xmllint --noout --nonet --schema "\${req[2]}" "\${req[@]:4}" 2>"\${req[3]}"
  printf '%s %s\\n' "\${req[0]}" "$?"
done`;

/** Extra time the launcher gets beyond the run's own limit before it is given up on. */
const GRACE_MS = 10_000;

export interface LaunchedRun {
  /** xmllint's exit status; null when it ended by a signal (the time limit, the stderr bound). */
  code: number | null;
  /** Killed at the time limit. */
  killed: boolean;
  /** Stopped because its stderr reached the file bound. */
  overflowed: boolean;
}

let launcherUsable: Promise<boolean> | undefined;

/** Whether bash and coreutils' timeout are there (the validator starts xmllint itself otherwise). */
export function launcherAvailable(): Promise<boolean> {
  launcherUsable ??= new Promise((resolve) =>
    execFile('bash', ['-c', 'timeout --version'], (err) => resolve(!err)),
  );
  return launcherUsable;
}

/** Whether these paths can travel in a request line. */
export function launchable(paths: readonly string[]): boolean {
  return paths.every((p) => !/[\t\n\r]/.test(p) && p.length > 0);
}

class Launcher {
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private buffer = '';
  private waiting: { run: number; resolve: (r: LaunchedRun) => void; reject: (e: Error) => void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  dead = false;

  constructor(private readonly onDeath: (launcher: Launcher) => void) {
    this.child = spawn('bash', ['-c', SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'] });
    // An idle launcher keeps nothing alive; a run in progress has its timer.
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout]) {
      (stream as unknown as { unref?: () => void }).unref?.();
    }
    this.child.stdin.on('error', () => this.die(new Error('the xmllint launcher stopped reading')));
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.read(chunk));
    this.child.on('error', (err) => this.die(err));
    this.child.on('exit', () => this.die(new Error('the xmllint launcher exited')));
  }

  run(run: number, line: string, timeoutMs: number): Promise<LaunchedRun> {
    return new Promise((resolve, reject) => {
      this.waiting = { run, resolve, reject };
      this.timer = setTimeout(() => {
        this.die(new Error('xmllint launcher did not answer'));
        this.child.kill('SIGKILL');
      }, timeoutMs + GRACE_MS);
      this.child.stdin.write(`${line}\n`);
    });
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let nl = this.buffer.indexOf('\n');
    while (nl >= 0) {
      const answer = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      nl = this.buffer.indexOf('\n');
      const [run, status] = answer.split(' ').map(Number);
      const waiting = this.waiting;
      if (!waiting || run !== waiting.run || !Number.isInteger(status)) continue;
      this.finish();
      // timeout(1) answers 128+9 for a command it killed; 128+25 is SIGXFSZ, the stderr bound.
      const code = status as number;
      waiting.resolve({
        code: code >= 128 ? null : code,
        killed: code === 137,
        overflowed: code === 153,
      });
    }
  }

  private finish(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = undefined;
  }

  private die(err: Error): void {
    const waiting = this.waiting;
    this.finish();
    if (!this.dead) {
      this.dead = true;
      this.onDeath(this);
    }
    waiting?.reject(err);
  }

  stop(): void {
    this.dead = true;
    this.child.kill('SIGKILL');
  }
}

const idle: Launcher[] = [];
const all = new Set<Launcher>();
let runs = 0;

function forget(launcher: Launcher): void {
  all.delete(launcher);
  const i = idle.indexOf(launcher);
  if (i >= 0) idle.splice(i, 1);
}

/**
 * One xmllint run through an idle launcher (started when none is idle). Each launcher runs one xmllint at
 * a time, so there are as many as runs have been at once (the validator's maxConcurrent).
 */
export async function launchXmllint(
  schemaPath: string,
  paths: readonly string[],
  stderrPath: string,
  timeoutMs: number,
): Promise<LaunchedRun> {
  const launcher = idle.pop() ?? new Launcher(forget);
  all.add(launcher);
  const run = ++runs;
  const seconds = (Math.max(1, timeoutMs) / 1000).toFixed(3);
  try {
    return await launcher.run(run, [run, seconds, schemaPath, stderrPath, ...paths].join('\t'), timeoutMs);
  } finally {
    if (!launcher.dead) idle.push(launcher);
  }
}

/** The launchers' process ids (tests). */
export function launcherPids(): number[] {
  return [...all].filter((l) => !l.dead).map((l) => l.child.pid as number);
}

/** Stops every launcher (tests; a process that exits takes them with it, their stdin closing). */
export function stopLaunchers(): void {
  for (const launcher of all) launcher.stop();
  all.clear();
  idle.length = 0;
}
