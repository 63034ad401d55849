/**
 * kgate's own import, run the way `kgate import` runs it: a first pass over the folder (every note created) and a
 * second one (every note unchanged), on one fresh database, with counts checked and time broken into phases.
 */
import { importFolder, type ImportReport } from '../../src/cli/import-folder.ts';
import type { Database } from '../../src/db/port.ts';
import type { Actor } from '../../src/kernel/principal.ts';
import { createServices } from '../../src/app/services.ts';
import { count } from '../support/format.ts';
import { importPhases, PhaseClock, timedDatabase, timedNotes } from './phases.ts';
import type { Sample } from './result.ts';

/**
 * Two `importFolder` passes over one fresh kgate database, exactly as `kgate import` runs them, timed by phase.
 * `engine` names the database in labels ("kgate on PGlite, first import"); a failure is returned for every count
 * that differs from `expected` notes created (first pass) or unchanged (second pass), or stored at the end.
 */
export async function kgateImportPasses(
  engine: string,
  db: Database,
  dir: string,
  expected: number,
): Promise<{ samples: Sample[]; failures: string[] }> {
  const clock = new PhaseClock();
  const services = createServices(timedDatabase(db, clock));
  const owner = await services.onboarding.bootstrapOwner({ email: 'bench@kgate.invalid' });
  const actor: Actor = { accountId: owner.accountId, credentialKind: 'operator', client: 'kgate-bench' };
  const notes = timedNotes(services.notes, clock);
  const samples: Sample[] = [];
  const failures: string[] = [];
  const passes = [
    { name: 'first import', field: 'created' },
    { name: 'second import', field: 'unchanged' },
  ] as const;
  for (const pass of passes) {
    clock.reset();
    const started = performance.now();
    const report: ImportReport = await importFolder(notes, actor, owner.mapping.id, dir);
    const ms = performance.now() - started;
    const outcome =
      `${count(report.created)} created, ${count(report.updated)} updated, ${count(report.unchanged)} unchanged` +
      (report.rejected.length > 0 ? `, ${count(report.rejected.length)} rejected` : '');
    samples.push({ label: `kgate on ${engine}, ${pass.name}`, system: engine, notes: report.notes, ms, outcome, phases: importPhases(clock, ms) });
    const others = report.created + report.updated + report.unchanged - report[pass.field];
    if (report.notes !== expected || report[pass.field] !== expected || others !== 0 || report.rejected.length > 0) {
      failures.push(`${engine} ${pass.name}: expected ${count(expected)} ${pass.field} of ${count(report.notes)} notes found, got ${outcome}`);
    }
  }
  const stored = await services.notes.countNotes(actor, owner.mapping.id);
  if (stored !== expected) failures.push(`${engine}: ${count(stored)} notes stored, expected ${count(expected)}`);
  return { samples, failures };
}
