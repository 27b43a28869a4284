// Resident memory of a service as the operating system sees it: the process and every process below it
// (a tenant-api cluster's workers, tsx's esbuild helper), read from /proc (Linux).
import { childPids } from '@cr/testkit';
import { readFileSync } from 'node:fs';

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** VmRSS of one process in bytes; undefined when it is gone. */
export function processRss(pid: number): number | undefined {
  const status = readProc(`/proc/${pid}/status`);
  const kb = status && /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : undefined;
}

/** RSS of `pid` and all its descendants, in bytes, with the pids counted. */
export function treeRss(pid: number): { bytes: number; pids: number[] } {
  const pids: number[] = [];
  let bytes = 0;
  const visit = (p: number) => {
    const rss = processRss(p);
    if (rss === undefined) return;
    pids.push(p);
    bytes += rss;
    for (const c of childPids(p)) visit(c);
  };
  visit(pid);
  return { bytes, pids };
}
