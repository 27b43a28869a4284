// PGlite's autovacuum (ADR 0041). PGlite runs PostgreSQL as one backend without the postmaster, so the
// autovacuum launcher never starts: left alone, no table is ever vacuumed or analysed. Dead row versions
// then stay in the tables and their indexes for good (every job goes pending → running → done, every
// document through its states), the files only grow, and the planner never gets statistics: the jobs' claim
// was planned afresh on every call (a prepared statement keeps a custom plan when the generic one's estimate
// is unknown) and scanned the dead entries of its indexes, ~4 ms per claim in the pipeline bench.
// This does what the launcher would, with PostgreSQL's default thresholds, through the same session.
import type { Logger } from '../logger';
import type { Queryable } from './types';

/** How often the statistics are read (PostgreSQL's autovacuum_naptime is 60 s per database). */
const PGLITE_MAINTENANCE_INTERVAL_MS = 10_000;

// PostgreSQL's defaults: autovacuum_vacuum_threshold 50 + scale factor 0.2, the insert-driven vacuum
// (PostgreSQL 13: keeps the visibility map current for index-only scans) 1,000 + 0.2, analyze 50 + 0.1, each
// scaled by the table's size as last measured (reltuples is -1 until the first vacuum or analyse).
const DUE_SQL = `
SELECT due.name, due.vacuum, due.analyze FROM (
  SELECT format('%I.%I', s.schemaname, s.relname) AS name, s.n_dead_tup,
         (s.n_dead_tup > 50 + 0.2 * t.size OR s.n_ins_since_vacuum > 1000 + 0.2 * t.size) AS vacuum,
         s.n_mod_since_analyze > 50 + 0.1 * t.size AS analyze
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  CROSS JOIN LATERAL (SELECT greatest(c.reltuples, 0) AS size) t
) due
WHERE due.vacuum OR due.analyze
ORDER BY due.n_dead_tup DESC`;

interface DueTable {
  name: string;
  vacuum: boolean;
  analyze: boolean;
}

// The vacuum and the analyse are separate statements, so the service's statements take their turn between
// them: `VACUUM (ANALYZE)` held the one session for both (documents: 37–40 ms, of which the vacuum 4–7 and the
// analyse 34–39, on 4,781 documents; ADR 0057).
function maintenanceCommands({ name, vacuum, analyze }: DueTable): string[] {
  return [...(vacuum ? [`VACUUM ${name}`] : []), ...(analyze ? [`ANALYZE ${name}`] : [])];
}

export interface PgliteMaintenanceOptions {
  intervalMs?: number;
  logger?: Logger;
}

export interface PgliteMaintenance {
  /** One pass now: every table past a threshold is vacuumed and/or analysed. Resolves with the commands run. */
  runOnce(): Promise<string[]>;
  /** No pass starts after this; resolves when the one under way (if any) has finished. */
  stop(): Promise<void>;
}

/**
 * Starts the passes on `session`, whose statements take the database in turn with the service's own: each
 * vacuum and each analyse is one statement, so a request waits for one of them at most, never for a pass.
 */
export function startPgliteMaintenance(
  session: Queryable,
  { intervalMs = PGLITE_MAINTENANCE_INTERVAL_MS, logger }: PgliteMaintenanceOptions = {},
): PgliteMaintenance {
  let stopped = false;
  let current: Promise<string[]> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const pass = async (): Promise<string[]> => {
    // The backend publishes its counts at most once a second, after a statement; this makes the next
    // statement's end publish them, so the pass reads every write made before it.
    await session.query('SELECT pg_stat_force_next_flush()');
    const due = await session.query<DueTable>(DUE_SQL);
    const done: string[] = [];
    for (const table of due.rows) {
      for (const command of maintenanceCommands(table)) {
        if (stopped) return done;
        const started = performance.now();
        try {
          await session.exec(command);
          done.push(command);
          logger?.debug('embedded database maintenance', {
            command,
            ms: Math.round(performance.now() - started),
          });
        } catch (err) {
          // A table dropped since the statistics were read, for one: its analyse would fail too, so the pass
          // goes on with the next table; the next pass reads the statistics again.
          logger?.warn('embedded database maintenance failed', { command, err });
          break;
        }
      }
    }
    return done;
  };

  const runOnce = (): Promise<string[]> => {
    const run = (current ?? Promise.resolve([])).then(pass, pass);
    current = run;
    return run;
  };

  const schedule = () => {
    timer = setTimeout(() => {
      runOnce()
        .catch((err: unknown) => {
          if (!stopped) logger?.warn('embedded database maintenance failed', { err });
        })
        .finally(() => {
          if (!stopped) schedule();
        });
    }, intervalMs);
    // The passes never keep a process alive on their own.
    timer.unref();
  };
  schedule();

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current?.catch(() => undefined);
    },
  };
}
