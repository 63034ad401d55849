/**
 * The whole `kgate import` command, as a user runs it: a child process from spawn to exit, into a fresh
 * installation (PGlite data directory or PostgreSQL database), its JSON report checked.
 */
import { bootstrapInstallation, runKgate } from '../http/installation.ts';
import { count } from '../support/format.ts';
import type { Sample } from './result.ts';

/** The label of a whole-command run on `engine`. */
export function commandLabel(engine: string): string {
  return `\`kgate import\` on ${engine}, the whole command (first import)`;
}

/**
 * Sets up an installation with `kgate admin bootstrap` (its demo notes included, not timed), then times
 * `kgate import DIR --mapping ID --json` into its vault. A failure is returned when the report does not say
 * `expected` notes created and nothing else.
 */
export async function commandImport(
  engine: string,
  env: Record<string, string>,
  dir: string,
  expected: number,
): Promise<{ sample: Sample; failure?: string }> {
  const owner = await bootstrapInstallation(env);
  const started = performance.now();
  const output = await runKgate(['import', dir, '--mapping', owner.mappingId, '--json'], env);
  const ms = performance.now() - started;
  const report = JSON.parse(output.trim()) as { notes: number; created: number; updated: number; unchanged: number; rejected: unknown[] };
  const outcome = `${count(report.created)} created, ${count(report.updated)} updated, ${count(report.unchanged)} unchanged`;
  const right = report.notes === expected && report.created === expected && report.updated === 0 && report.unchanged === 0 && report.rejected.length === 0;
  return {
    sample: { label: commandLabel(engine), system: engine, notes: report.notes, ms, outcome },
    ...(right ? {} : { failure: `${engine}, whole command: expected ${count(expected)} created, got ${outcome}` }),
  };
}
