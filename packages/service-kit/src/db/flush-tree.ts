// Flushes a directory tree to disk, each file and then each directory (ADR 0061): what initdb does at its end
// with `sync_pgdata`, and what PGlite's cluster creation, which runs without flushes, leaves undone.
import { closeSync, fsyncSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Flushes the file or directory at `path`: opened for reading, `flush` on its descriptor (fsync by default). */
export function flushPath(path: string, flush: (fd: number) => void = fsyncSync): void {
  const fd = openSync(path, 'r');
  try {
    flush(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes every regular file and directory under `dir`, `dir` itself last; returns how many. */
export function flushTree(dir: string): number {
  let flushed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) flushed += flushTree(path);
    else if (entry.isFile()) {
      flushPath(path);
      flushed += 1;
    }
  }
  flushPath(dir);
  return flushed + 1;
}
