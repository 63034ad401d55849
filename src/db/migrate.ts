import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { packageFile } from '../kernel/package-files.ts';
import { sha256Hex } from '../kernel/hashing.ts';
import type { Database, Sql } from './port.ts';

/** One SQL migration file, `NNNN_name.sql`, in `src/db/migrations/`. */
export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

/** Where migrations live; tests may pass another folder. */
export const MIGRATIONS_DIR = packageFile('src', 'db', 'migrations');

const FILE_PATTERN = /^(\d{4})_([a-z0-9_]+)\.sql$/;

// Any constant works; it only has to be the same in every kgate process sharing a database.
const MIGRATION_LOCK_KEY = 7_446_761_029;

/** Reads the migration files in version order. */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => FILE_PATTERN.test(file))
    .sort()
    .map((file) => {
      const [, version, name] = FILE_PATTERN.exec(file)!;
      const sql = readFileSync(join(dir, file), 'utf8');
      return { version: version!, name: name!, sql, checksum: sha256Hex(sql) };
    });
}

const CREATE_LEDGER = `
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version text PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`;

interface AppliedRow {
  version: string;
  checksum: string;
  [key: string]: unknown;
}

async function appliedMigrations(sql: Sql): Promise<Map<string, string>> {
  const rows = await sql.query<AppliedRow>('SELECT version, checksum FROM schema_migrations');
  return new Map(rows.map((row) => [row.version, row.checksum]));
}

/** The applied migrations and their checksums, or undefined before the ledger exists (a new database). */
async function ledgerOf(sql: Sql): Promise<Map<string, string> | undefined> {
  const [ledger] = await sql.query<{ name: string | null }>("SELECT to_regclass('schema_migrations')::text AS name");
  return ledger?.name ? appliedMigrations(sql) : undefined;
}

function assertUnchanged(applied: Map<string, string>, migrations: Migration[]): void {
  for (const migration of migrations) {
    const checksum = applied.get(migration.version);
    if (checksum !== undefined && checksum !== migration.checksum) {
      throw new Error(
        `Migration ${migration.version}_${migration.name} was changed after it was applied to this database. ` +
          'Applied migrations are immutable: restore the file and add a new migration instead.',
      );
    }
  }
}

/**
 * Applies pending migrations, each in its own transaction with its ledger row, so a failure leaves the database
 * at the last good version. An advisory lock serializes concurrent starts of several kgate processes on one
 * PostgreSQL database. Safe to re-run; returns the versions it applied.
 */
export async function migrate(db: Database, migrations: Migration[] = loadMigrations()): Promise<string[]> {
  // Every start runs this: a database already at head is told by one read of the ledger, without a lock or a
  // transaction per migration (migrations are only ever added, so "all applied" cannot be undone meanwhile).
  const ledger = await ledgerOf(db);
  if (ledger) {
    assertUnchanged(ledger, migrations);
    if (migrations.every((migration) => ledger.has(migration.version))) return [];
  }
  await db.exec(CREATE_LEDGER);
  const appliedNow: string[] = [];
  for (const migration of migrations) {
    const didApply = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const applied = await appliedMigrations(tx);
      assertUnchanged(applied, migrations);
      if (applied.has(migration.version)) return false;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        migration.checksum,
      ]);
      return true;
    });
    if (didApply) appliedNow.push(migration.version);
  }
  return appliedNow;
}

/** Where the database stands against the migrations this build knows. */
export interface MigrationStatus {
  atHead: boolean;
  applied: string[];
  pending: string[];
}

/** Reads the ledger; `atHead` is true when every known migration is applied. Used by `/readyz`. */
export async function migrationStatus(
  db: Sql,
  migrations: Migration[] = loadMigrations(),
): Promise<MigrationStatus> {
  const applied = new Set((await ledgerOf(db))?.keys());
  const pending = migrations.filter((m) => !applied.has(m.version)).map((m) => m.version);
  return { atHead: pending.length === 0, applied: [...applied].sort(), pending };
}
