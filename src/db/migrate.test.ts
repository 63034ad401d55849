import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.ts';
import { loadMigrations, migrate, migrationStatus, type Migration } from './migrate.ts';
import type { Database } from './port.ts';

describe('migrations', () => {
  let db: Database;
  let extraDir: string;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    extraDir = await mkdtemp(join(tmpdir(), 'kgate-migrations-'));
  });
  afterAll(async () => {
    await db.close();
    await rm(extraDir, { recursive: true, force: true });
  });

  it('are recorded in schema_migrations with their checksums, and the database is at head', async () => {
    const known = loadMigrations();
    const rows = await db.query<{ version: string; checksum: string }>(
      'SELECT version, checksum FROM schema_migrations ORDER BY version',
    );
    expect(rows.map((r) => r.version)).toEqual(known.map((m) => m.version));
    expect(rows.map((r) => r.checksum)).toEqual(known.map((m) => m.checksum));
    expect(await migrationStatus(db)).toEqual({ atHead: true, applied: known.map((m) => m.version), pending: [] });
  });

  it('re-running applies nothing and changes nothing', async () => {
    const before = await db.query('SELECT * FROM schema_migrations ORDER BY version');
    expect(await migrate(db)).toEqual([]);
    expect(await db.query('SELECT * FROM schema_migrations ORDER BY version')).toEqual(before);
  });

  it('applies a new migration once, reports it pending before, and records it', async () => {
    await writeFile(join(extraDir, '9001_widgets.sql'), 'CREATE TABLE widgets (id int PRIMARY KEY);');
    const all: Migration[] = [...loadMigrations(), ...loadMigrations(extraDir)];
    expect((await migrationStatus(db, all)).pending).toEqual(['9001']);
    expect(await migrate(db, all)).toEqual(['9001']);
    expect(await migrate(db, all)).toEqual([]);
    expect(await db.query('SELECT count(*)::int AS n FROM widgets')).toEqual([{ n: 0 }]);
    expect((await migrationStatus(db, all)).atHead).toBe(true);
  });

  it('rolls a failing migration back whole and records nothing', async () => {
    await writeFile(join(extraDir, '9002_broken.sql'), 'CREATE TABLE gadgets (id int); SELECT * FROM no_such_table;');
    const all = [...loadMigrations(), ...loadMigrations(extraDir)];
    await expect(migrate(db, all)).rejects.toThrow(/no_such_table/);
    expect(await db.query("SELECT to_regclass('gadgets')::text AS t")).toEqual([{ t: null }]);
    expect((await migrationStatus(db, all)).pending).toEqual(['9002']);
    await rm(join(extraDir, '9002_broken.sql'));
  });

  it('refuses to run when an applied migration was edited', async () => {
    const edited = loadMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'edited' } : m));
    await expect(migrate(db, edited)).rejects.toThrow(/was changed after it was applied/);
  });
});
