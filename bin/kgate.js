#!/usr/bin/env node
// The `kgate` command. It runs the compiled bundle dist/kgate.js (scripts/build.js), built at `npm ci` and
// rebuilt here first whenever a source is newer, so no TypeScript loader runs in the gateway.
import { setFlagsFromString } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { startStandbyDatabaseThread } from '../src/db/pglite-standby.js';
import { BUNDLE, ensureBuilt } from '../scripts/build.js';

const argv = process.argv.slice(2);

// The embedded database is PostgreSQL compiled to WebAssembly. In the gateway, V8's baseline compiler alone
// (Liftoff) keeps about 80 MB less machine code resident than with the optimizing tier on top, and spares the
// cores the optimizing compiler's work in the first seconds of load (docs/architecture.md, "The embedded database
// is sized for a gateway"). A command with a long batch of work, an import, runs faster with the optimizing tier:
// a 20,000-note first import took 9.1 s with it and 11.2 s without (2026-11-25). Set before any WebAssembly is
// compiled; it applies to the database thread too.
if (argv[0] === 'serve') setFlagsFromString('--liftoff-only');
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
