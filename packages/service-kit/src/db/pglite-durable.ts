// The embedded engine flushes each commit to disk (ADR 0061), as PostgreSQL does with synchronous_commit on
// (ADR 0023). PGlite, as shipped, does not: it starts PostgreSQL with `-F` (fsync off), and its Node file
// system, Emscripten's NODEFS, has no fsync operation, so PostgreSQL's fsync() succeeds without a system call
// (its fdatasync() is a no-op in Emscripten). A commit reached the operating system, never the disk: a power
// loss could take acknowledged documents and damage the data directory.
import { fsyncSync } from 'node:fs';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { flushPath } from './flush-tree';

/** An open file of Emscripten's NODEFS: `nfd` is the Node descriptor of a file; a directory has none. */
interface NodefsStream {
  nfd?: number;
  node: unknown;
}

/** The part of Emscripten's NODEFS this reaches into; not PGlite's API, so a test pins it (database.test.ts). */
interface EmscriptenNodefs {
  stream_ops: { fsync?: (stream: NodefsStream) => number };
  realPath(node: unknown): string;
}

/** Emscripten's FS, for the error type its system calls turn into an errno. */
interface EmscriptenFs {
  ErrnoError: new (errno: number) => Error;
}

/** EIO in Emscripten's errno numbering (WASI's). */
const EMSCRIPTEN_EIO = 29;

/** Flushes one descriptor to disk; a test gives one that fails (a disk's EIO). */
export type FlushDescriptor = (fd: number) => void;

function flushOf(stream: NodefsStream, nodefs: EmscriptenNodefs, flush: FlushDescriptor): void {
  if (typeof stream.nfd === 'number') {
    flush(stream.nfd);
    return;
  }
  // PostgreSQL flushes a directory after creating or renaming a file in it (a new WAL segment, a relation).
  flushPath(nodefs.realPath(stream.node), flush);
}

/** PGlite's Node file system with the fsync operation NODEFS lacks: a flush is `fs.fsyncSync`. */
export class DurableNodeFS extends NodeFS {
  /** Flushes done, for the test that checks they happen. */
  flushes = 0;

  constructor(
    dataDir: string,
    private readonly flush: FlushDescriptor = fsyncSync,
  ) {
    super(dataDir);
  }

  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const install = (mod: unknown) => {
      const { NODEFS: nodefs, FS: emscriptenFs } = mod as { NODEFS?: EmscriptenNodefs; FS?: EmscriptenFs };
      const ErrnoError = emscriptenFs?.ErrnoError;
      if (!nodefs?.stream_ops || typeof nodefs.realPath !== 'function' || typeof ErrnoError !== 'function') {
        throw new Error("PGlite's Node file system has changed: its files cannot be flushed (ADR 0061)");
      }
      // A flush that fails is an EIO for PostgreSQL, which then stops rather than acknowledge the commit. Any
      // other error thrown here would be lost inside Emscripten: the commit answered, the database hung after.
      nodefs.stream_ops.fsync = (stream) => {
        try {
          flushOf(stream, nodefs, this.flush);
        } catch {
          throw new ErrnoError(EMSCRIPTEN_EIO);
        }
        this.flushes += 1;
        return 0;
      };
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), install] } };
  }
}

/**
 * PGlite's options for a data directory that survives a power loss: the file system above, PGlite's own start
 * parameters without `-F`, and `wal_sync_method=fsync` (the default, fdatasync, is a no-op in Emscripten).
 */
export function durablePgliteOptions(
  dataDir: string,
  flush?: FlushDescriptor,
): Pick<PGliteOptions, 'fs' | 'startParams'> & { fs: DurableNodeFS } {
  return {
    fs: new DurableNodeFS(dataDir, flush),
    startParams: PGlite.defaultStartParams.filter((param) => param !== '-F'),
  };
}

/** Settings a durable data directory adds to the embedded ones. */
export const DURABLE_SETTINGS = ['fsync=on', 'wal_sync_method=fsync'];
