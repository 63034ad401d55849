#!/usr/bin/env node
// The `kgate` command. Sources are TypeScript run through tsx's loader, so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/index.ts');
process.exitCode = await runCli(process.argv.slice(2));
