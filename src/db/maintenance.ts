import type { Database } from './database.js';

/**
 * What PostgreSQL's autovacuum does, for the embedded database, which has none: PGlite runs a
 * single backend without the autovacuum launcher, so its tables are never analyzed (the planner
 * works without statistics: a knowledge search over a few thousand vocabulary words filtered
 * every word by trigram similarity instead of using the trigram index, 46 ms instead of 0.4 ms)
 * and never vacuumed (each chat leaves dead rows behind: its quota reservation, the counter and
 * conversation updates). The scheduler runs `maintainTables` every half minute on PGlite.
 */

export interface TableActivity {
  table: string;
  live: number;
  dead: number;
  modifiedSinceAnalyze: number;
  /** False when the table was never analyzed. */
  analyzed: boolean;
}

export interface MaintenancePlan {
  vacuum: string[];
  analyze: string[];
}

/** autovacuum's defaults: a base threshold plus a share of the table's live rows. */
export const VACUUM_THRESHOLD = { base: 50, share: 0.2 };
export const ANALYZE_THRESHOLD = { base: 50, share: 0.1 };

/** Which tables need a VACUUM (with ANALYZE) and which only an ANALYZE. */
export function planMaintenance(tables: readonly TableActivity[]): MaintenancePlan {
  const vacuum: string[] = [];
  const analyze: string[] = [];
  for (const t of tables) {
    if (t.dead > VACUUM_THRESHOLD.base + VACUUM_THRESHOLD.share * t.live) vacuum.push(t.table);
    else if (
      t.modifiedSinceAnalyze > ANALYZE_THRESHOLD.base + ANALYZE_THRESHOLD.share * t.live ||
      (!t.analyzed && t.live > 0)
    )
      analyze.push(t.table);
  }
  return { vacuum, analyze };
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Reads the tables' activity, then vacuums and analyzes what the thresholds call for. */
export async function maintainTables(db: Database): Promise<MaintenancePlan> {
  // Counters of this backend reach the statistics views only when flushed.
  await db.query('SELECT pg_stat_force_next_flush()', []);
  const plan = planMaintenance(
    await db.query<TableActivity>(
      `SELECT s.relname AS table, s.n_live_tup::int AS live, s.n_dead_tup::int AS dead,
              s.n_mod_since_analyze::int AS "modifiedSinceAnalyze",
              (s.last_analyze IS NOT NULL OR s.last_autoanalyze IS NOT NULL) AS analyzed
       FROM pg_stat_user_tables s WHERE s.schemaname = 'public'
       ORDER BY s.relname`,
      [],
    ),
  );
  for (const table of plan.vacuum) await db.exec(`VACUUM (ANALYZE) ${quote(table)}`);
  for (const table of plan.analyze) await db.exec(`ANALYZE ${quote(table)}`);
  return plan;
}
