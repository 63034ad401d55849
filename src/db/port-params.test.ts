import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.ts';
import { textArrayParam, uuidArrayParam, type Database } from './port.ts';

// Binary array parameters reach the server as the arrays they encode, on the engine of this test project.
describe('binary array parameters', () => {
  let db: Database;
  beforeAll(async () => {
    ({ db } = await openTestDatabase());
  });
  afterAll(() => db.close());

  const roundTrip = async (values: readonly (string | null)[]) =>
    (await db.query<{ v: string | null; n: number }>('SELECT v, n::int FROM unnest($1::text[]) WITH ORDINALITY AS t(v, n) ORDER BY n', [textArrayParam(values)])).map(
      (r) => r.v,
    );

  it('carries text exactly: quotes, backslashes, braces, commas, empty strings, nulls and characters outside ASCII', async () => {
    const values = ['plain', '', 'a "quoted" \\ back,slash {braces}', null, 'NULL', 'é ü 日本 🎉', 'line\nbreak\ttab', 'x'.repeat(70_000)];
    expect(await roundTrip(values)).toEqual(values);
    expect((await db.query<{ n: number }>('SELECT cardinality($1::text[])::int AS n', [textArrayParam(values)]))[0]!.n).toBe(values.length);
  });

  it('encodes the empty array, and a lone surrogate as the replacement character the text path would send', async () => {
    expect(await roundTrip([])).toEqual([]);
    expect((await db.query<{ e: boolean }>("SELECT $1::text[] = '{}'::text[] AS e", [textArrayParam([])]))[0]!.e).toBe(true);
    expect(await roundTrip(['a\uD800b'])).toEqual(['a\uFFFDb']);
  });

  it('carries UUIDs, and refuses what is not one before anything is sent', async () => {
    const ids = ['01a2134b-c25b-7d63-9b49-476bb9385307', '00000000-0000-4000-8000-000000000001', 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF'];
    const rows = await db.query<{ id: string }>('SELECT unnest($1::uuid[])::text AS id', [uuidArrayParam(ids)]);
    expect(rows.map((r) => r.id)).toEqual(ids.map((id) => id.toLowerCase()));
    expect((await db.query<{ n: number }>('SELECT cardinality($1::uuid[])::int AS n', [uuidArrayParam([])]))[0]!.n).toBe(0);
    expect(() => uuidArrayParam(['not-a-uuid'])).toThrow(/not a UUID/);
    expect(() => uuidArrayParam(['01a2134b-c25b-7d63-9b49-476bb938530g'])).toThrow(/not a UUID/);
  });
});
