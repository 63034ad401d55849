#!/usr/bin/env node
// The `kgate` command. It runs the compiled bundle dist/kgate.js (scripts/build.js), built at `npm ci` and
// rebuilt here first whenever a source is newer, so no TypeScript loader runs in the gateway.
import { setFlagsFromString } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { startStandbyDatabaseThread } from '../src/db/pglite-standby.js';
import { BUNDLE, ensureBuilt } from '../scripts/build.js';

// The embedded database is PostgreSQL compiled to WebAssembly. V8's baseline compiler alone (Liftoff) compiles it
// at start in a fraction of the time and keeps about 80 MB less machine code resident than with the optimizing
// tier on top, and SQL runs as fast for kgate's statements (docs/benchmarks.md, "Cold start"). Set before any
// WebAssembly is compiled; it applies to the database thread too.
setFlagsFromString('--liftoff-only');

const argv = process.argv.slice(2);
// `kgate serve` on the embedded database (no DATABASE_URL, as config.ts decides) starts the database's thread
// first, so that it compiles PostgreSQL on the other core while this one loads kgate (docs/architecture.md,
// "Starting in under a second"). A help request opens nothing.
const standbyDatabase =
  argv[0] === 'serve' && !process.env.DATABASE_URL && !argv.some((arg) => arg === '--help' || arg === '-h')
    ? startStandbyDatabaseThread()
    : undefined;

await ensureBuilt();
const { runCli } = await import(pathToFileURL(BUNDLE).href);
process.exitCode = await runCli(argv, standbyDatabase ? { standbyDatabase } : {});
