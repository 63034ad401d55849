/**
 * Scratch PostgreSQL databases for benchmarks: each measurement gets a fresh, randomly named database on a
 * server, dropped afterwards (on Ctrl-C too). When the server cannot be used the caller gets the reason instead
 * of an exception, so a benchmark can skip PostgreSQL, say why, and still measure PGlite.
 *
 * Typical use:
 *
 *     const scratch = await createScratchDatabase(benchServerUrl());
 *     if ('skipped' in scratch) return report(scratch.skipped);
 *     try { ...open scratch.url... } finally { await scratch.drop(); }
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { cleanupOnInterrupt } from './interrupt.ts';

/** The PostgreSQL server used when KGATE_BENCH_DATABASE_URL is not set (local, trust auth). */
export const DEFAULT_BENCH_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/** The server to create scratch databases on: `explicit` if given, else KGATE_BENCH_DATABASE_URL, else the local one. */
export function benchServerUrl(explicit?: string): string {
  return explicit ?? process.env.KGATE_BENCH_DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL;
}

/** A fresh database on the server, for one measurement. */
export interface ScratchDatabase {
  /** `kgate_bench_` and 12 random hex digits. */
  name: string;
  /** Connection URL of the scratch database (the server URL with its path replaced). */
  url: string;
  /** The server's version and durability settings, for a report, e.g. "PostgreSQL 15.20 (...) (local server over TCP, fsync=on, synchronous_commit=on)". */
  version: string;
  /** Drops the database (forcing out open connections) and disconnects; safe to call more than once. */
  drop(): Promise<void>;
}

/** Why no scratch database could be created (server unreachable, no CREATEDB right...), ready to print. */
export interface ScratchDatabaseSkipped {
  skipped: string;
}

/** Removes credentials from a connection URL before it is printed. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** Creates `kgate_bench_<random>` on the server, or says why the server could not be used. */
export async function createScratchDatabase(serverUrl: string): Promise<ScratchDatabase | ScratchDatabaseSkipped> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    await admin.end().catch(() => undefined);
    return { skipped: `cannot connect to ${redact(serverUrl)}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const name = `kgate_bench_${randomBytes(6).toString('hex')}`;
  try {
    const server = (await admin.query<{ version: string }>('SELECT version()')).rows[0]?.version ?? 'unknown';
    const settings = await admin.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit') ORDER BY name",
    );
    const version = `${server.split(', compiled by')[0] ?? server} (local server over TCP, ${settings.rows
      .map((r) => `${r.name}=${r.setting}`)
      .join(', ')})`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    // Drop on Ctrl-C too, so that an interrupted run leaves no database behind.
    const drop = cleanupOnInterrupt(async () => {
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    });
    return { name, url: url.toString(), version, drop };
  } catch (error) {
    await admin.end().catch(() => undefined);
    return { skipped: `cannot create a scratch database: ${error instanceof Error ? error.message : String(error)}` };
  }
}
