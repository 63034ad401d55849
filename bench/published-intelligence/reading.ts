/**
 * The closing reading of the published intelligence section, written from the figures of the run (so that a new run
 * cannot leave an old claim behind): warm latency against search_notes, the first search of a fresh process, and what
 * publishing does to a running gateway.
 */
import { fixed } from '../support/format.ts';
import { median } from '../support/stats.ts';
import type { EngineRun, PublishedIntelligenceResult, RowKey } from './measure.ts';

const ms = (value: number): string => `${fixed(value, value >= 100 ? 0 : 1)} ms`;
const s = (value: number): string => `${fixed(value / 1000, 1)} s`;
const row = (run: EngineRun, key: RowKey) => run.rows.find((r) => r.key === key)!;

/** Markdown paragraphs (one list) of what the run shows. */
export function reading(result: PublishedIntelligenceResult): string[] {
  const lines = ['**Reading.**', ''];
  for (const run of result.engines) {
    const notes = row(run, 'notes');
    const late = row(run, 'late');
    const early = row(run, 'early');
    const cold = run.cold;
    const firstPack = median(cold.map((c) => c.packMs));
    const firstNotes = cold.map((c) => c.notesMs);
    const stall = median(cold.map((c) => c.helloDuringPack.maxMs));
    lines.push(
      `- **${run.engine}, warm.** \`search_published_intelligence\` answers in p50 ${ms(late.p50)} and p95 ${ms(late.p95)} at the late cutoff, ` +
        `${fixed(late.p95 / notes.p95, 2)}× the p95 of \`search_notes\` (${ms(notes.p95)}) on a vault of about as many characters, and p95 ${ms(early.p95)} at the early cutoff: ` +
        `the cutoff changes little, since the work follows the question's postings. Its answers are larger (${fixed((late.meanBytes ?? 0) / 1000, 1)} KB against ${fixed((notes.meanBytes ?? 0) / 1000, 1)} KB: every result carries its evidence), ` +
        `and hello-world from the same client takes p50 ${ms(row(run, 'hello').p50)}.`,
      `- **${run.engine}, first search of a fresh process.** ${ms(firstPack)} (median of ${cold.length}): the pack version is loaded from the database ` +
        `(${ms(run.firstSearch.loadMs)} in the benchmark process) and its answers built (${ms(run.firstSearch.buildMs)} in one go; the gateway builds them in slices), on every start: ` +
        `nothing of a pack version's answers is kept on disk. The slowest \`/healthz\` meanwhile took ${ms(stall)} (median over the starts). ` +
        `The first \`search_notes\` took ${firstNotes.map(ms).join(', ')} on the ${cold.length} starts${run.engine === 'PGlite' ? ' (on PGlite the vault index is kept as a snapshot in the data directory, so a restart can load it instead of building it)' : ''}.` +
        ` The server's resident memory grew by ${fixed(cold[cold.length - 1]!.rssMb.afterPack - cold[cold.length - 1]!.rssMb.started, 0)} MB over that first search (the loaded pack version and its answers).`,
      `- **${run.engine}, publishing.** \`kgate packs publish\` took ${s(run.publication.ms)} for the ${fixed(result.pack.sources, 0)} sources, and ${s(run.publication.againMs)} again when nothing changed ` +
        '(the folder is read, validated and hashed, and the hash compared with that of the latest version before anything is built: reading and validating the folder is what it costs). ' +
        (run.engine === 'PGlite'
          ? `On PGlite the command runs inside the gateway (its control channel), and reading and validating the folder holds the event loop for up to ${s(run.setup.loadLongestBlockMs)} (measured in the benchmark process): ` +
            `the gateway's \`/healthz\` waited up to ${s(run.publication.helloDuringPublish.maxMs)} during the publication, and every other request with it.`
          : `On PostgreSQL the command runs in its own process, and the gateway's \`/healthz\` waited at most ${ms(run.publication.helloDuringPublish.maxMs)} meanwhile.`),
    );
  }
  return lines;
}
