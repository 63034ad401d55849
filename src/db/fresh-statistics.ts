import type { Database } from './port.ts';

/**
 * How much a table's file may grow past the size its statistics were taken at before they are taken again: a tenth,
 * as autovacuum's default `autovacuum_analyze_scale_factor`, plus a few pages so that small tables are left alone.
 */
const GROWTH_FACTOR = 1.1;
const GROWTH_PAGES = 8;

/**
 * Analyzes the tables of the public schema whose files grew by more than a tenth since their statistics were taken
 * (`pg_class.relpages` is what ANALYZE or VACUUM last saw; `pg_relation_size` is the file now), in one statement.
 * Returns the tables it analyzed.
 *
 * Why: PostgreSQL's autovacuum, which keeps the planner's statistics current on a server, does not run in PGlite
 * (one process, no background workers). A vault that grows through the API was planned with the statistics of its
 * first notes: reading 140 notes by path went from an index probe each to a scan of the whole vault, 10 ms at 21,000
 * notes and growing with it (docs/operations.md, "Planner statistics").
 */
export async function refreshGrownStatistics(db: Database): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT c.relname AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r'
        AND pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * $1::float8 + $2::int
      ORDER BY c.relname`,
    [GROWTH_FACTOR, GROWTH_PAGES],
  );
  const names = rows.map((row) => row.name);
  if (names.length > 0) await db.exec(`ANALYZE ${names.map((name) => `"${name.replaceAll('"', '""')}"`).join(', ')}`);
  return names;
}
