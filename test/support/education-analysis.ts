/**
 * Shared pieces of the education analysis tests (artifact recommendations and the standards crosswalk): the fixtures
 * and their golden answers, a seeded deep shuffle of a request, and the golden-file check.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Sql } from '../../src/db/port.ts';
export { seededRandom } from './seeded-random.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/education/', import.meta.url));

/** A fixture of test/fixtures/education/, parsed. */
export function educationFixture<T = Record<string, unknown>>(path: string): T {
  return JSON.parse(readFileSync(`${FIXTURES}${path}`, 'utf8')) as T;
}

/** The recommendation request of the fixtures. */
export function recommendRequest(): Record<string, unknown> & { candidates: Array<Record<string, unknown>> } {
  return educationFixture('recommend/request.json');
}

/** The crosswalk request of the fixtures: the two CASE slices, with a minConfidence low enough to show every band. */
export function crosswalkRequest(): { source: Record<string, unknown>; target: Record<string, unknown>; minConfidence: number } {
  return { source: educationFixture('crosswalk/source.case.json'), target: educationFixture('crosswalk/target.case.json'), minConfidence: 0.5 };
}

/**
 * Checks an answer's data against its golden file, byte for byte (two-space JSON and a final newline). With
 * KGATE_UPDATE_GOLDEN=1 the file is rewritten instead, for a deliberate change of the method (review the diff).
 */
export function expectGolden(path: string, data: unknown): void {
  const text = `${JSON.stringify(data, null, 2)}\n`;
  if (process.env.KGATE_UPDATE_GOLDEN === '1') writeFileSync(`${FIXTURES}${path}`, text);
  expect(text).toBe(readFileSync(`${FIXTURES}${path}`, 'utf8'));
}

/** A copy of a JSON value with every list shuffled and the keys of every object in another order. */
export function deepShuffled<T>(value: T, random: () => number): T {
  if (Array.isArray(value)) {
    const out = value.map((inner: unknown) => deepShuffled(inner, random));
    for (let k = out.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [out[k], out[j]] = [out[j], out[k]];
    }
    return out as T;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, inner]) => [key, deepShuffled(inner, random)] as const);
    for (let k = entries.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [entries[k], entries[j]] = [entries[j]!, entries[k]!];
    }
    return Object.fromEntries(entries) as T;
  }
  return value;
}

/** Every fullStatement of a CASE slice (to prove that none is answered). */
export function statementsOf(slice: Record<string, unknown>): string[] {
  return (slice.CFItems as Array<{ fullStatement: string }>).map((item) => item.fullStatement);
}

/** Every table of the database with a digest of its rows, to prove that a call changed nothing. */
export async function tableDigests(db: Pick<Sql, 'query'>): Promise<Map<string, string>> {
  const tables = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const digests = new Map<string, string>();
  for (const { name } of tables) {
    const [row] = await db.query<{ digest: string }>(
      `SELECT count(*)::text || ':' || coalesce(md5(string_agg(md5(t::text), ',' ORDER BY md5(t::text))), '') AS digest FROM "${name}" t`,
    );
    digests.set(name, row!.digest);
  }
  return digests;
}

/** The tables whose rows differ between two digests. */
export function changedTables(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((name) => before.get(name) !== after.get(name)).sort();
}
