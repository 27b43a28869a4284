import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flushTree } from '../src/db/flush-tree';

test('when a new cluster is flushed, then every file and directory under it is, the top one included (ADR 0061)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flush-tree-'));
  try {
    mkdirSync(join(dir, 'base', '1'), { recursive: true });
    mkdirSync(join(dir, 'pg_wal'));
    writeFileSync(join(dir, 'PG_VERSION'), '18\n');
    writeFileSync(join(dir, 'base', '1', '1259'), Buffer.alloc(8192));
    writeFileSync(join(dir, 'pg_wal', '000000010000000000000001'), Buffer.alloc(16384));
    // Three files, four directories (base, base/1, pg_wal and the top one).
    expect(flushTree(dir)).toBe(7);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
