/**
 * Where a statement's time goes inside the database: `EXPLAIN (ANALYZE, FORMAT JSON)` of the very statement the
 * gateway sent, with its parameters, reports the time spent planning it and executing it. The gateway sends every
 * statement unnamed, so the database parses and plans it again on every call; a join of many tables costs more to
 * plan than to run. Each statement is explained `repeat` times and the medians are kept. EXPLAIN ANALYZE runs the
 * statement: the metering upsert counts one more operation each time.
 */
import type { Sql } from '../../src/db/port.ts';
import type { StatementExample, StatementKind } from './statements.ts';

/** Median planning and execution time of one statement, ms. */
export interface PlanCost {
  planningMs: number;
  executionMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** Planning and execution time of each example statement of `kinds`. */
export async function planCosts(
  sql: Sql,
  examples: Partial<Record<StatementKind, StatementExample>>,
  kinds: readonly StatementKind[],
  repeat = 21,
): Promise<Partial<Record<StatementKind, PlanCost>>> {
  const costs: Partial<Record<StatementKind, PlanCost>> = {};
  for (const kind of kinds) {
    const example = examples[kind];
    if (!example) continue;
    const planning: number[] = [];
    const execution: number[] = [];
    for (let k = 0; k < repeat; k++) {
      const rows = await sql.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${example.text}`, example.params);
      const raw = rows[0]?.['QUERY PLAN'];
      // The JSON format answers one row: an array holding one object with the plan and the two times.
      const report = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ 'Planning Time': number; 'Execution Time': number }>;
      planning.push(report[0]!['Planning Time']);
      execution.push(report[0]!['Execution Time']);
    }
    costs[kind] = { planningMs: median(planning), executionMs: median(execution) };
  }
  return costs;
}
