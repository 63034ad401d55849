#!/usr/bin/env node
// The `kgate` command. It runs the compiled bundle dist/kgate.js (scripts/build.js), built at `npm ci` and
// rebuilt here first whenever a source is newer, so no TypeScript loader runs in the gateway.
import { setFlagsFromString } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { BUNDLE, ensureBuilt } from '../scripts/build.js';

// The embedded database is PostgreSQL compiled to WebAssembly. V8's baseline compiler alone (Liftoff) compiles it
// at start in a fraction of the time and keeps about 80 MB less machine code resident than with the optimizing
// tier on top, and SQL runs as fast for kgate's statements (docs/benchmarks.md, "Cold start"). Set before any
// WebAssembly is compiled; it applies to the database thread too.
setFlagsFromString('--liftoff-only');

await ensureBuilt();
const { runCli } = await import(pathToFileURL(BUNDLE).href);
process.exitCode = await runCli(process.argv.slice(2));
