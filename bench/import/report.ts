/**
 * The "Import throughput" section of docs/benchmarks.md, rendered from a measured result: the runs table, the
 * setup, where the time goes by phase, and sentences that read the numbers so a reader need not.
 */
import type { BenchmarkReport } from '../support/benchmark.ts';
import { count, fixed, percent } from '../support/format.ts';
import { sum } from '../support/stats.ts';
import { commandLabel } from './command-run.ts';
import { PHASES } from './phases.ts';
import type { ImportThroughputResult, ThroughputRow } from './result.ts';

/** Milliseconds a run spent in its database (statements, transactions; SQLite inserts for baseline B). */
function databaseMs(row: ThroughputRow): number {
  const phases = row.phases ?? {};
  return sum(PHASES.filter((p) => p.startsWith('SQL') || p.startsWith('BEGIN')).map((p) => phases[p]));
}

/** How long the same reads take inside baseline B and the kgate imports, against baseline A alone. */
function readsInside(rows: readonly ThroughputRow[], readOnly: ThroughputRow): string {
  const inside = rows.map((r) => r.phases?.['read files']).filter((ms): ms is number => ms !== undefined);
  if (inside.length === 0) return '';
  const low = Math.min(...inside) / 1000;
  const high = Math.max(...inside) / 1000;
  // Only worth a sentence when the difference is clearly more than noise.
  if (low < readOnly.seconds * 1.2) return '';
  return (
    `Inside baseline B the same reads take ${fixed(low, 2)}–${fixed(high, 2)} s instead of ` +
    `baseline A's ${fixed(readOnly.seconds, 2)} s: an awaited read waits longer when other work runs between reads. `
  );
}

/** Sentences that read the numbers: kgate against the baselines, and where kgate's time goes. */
function interpretation(result: ImportThroughputResult): string[] {
  const rows = result.rows;
  const readOnly = rows.find((r) => r.label.startsWith('Baseline A'));
  const reference = rows.find((r) => r.system === 'reference');
  const sqlite = rows.find((r) => r.label.startsWith('Baseline B'));
  if (!readOnly || !reference || !sqlite) return [];
  const lines: string[] = [];
  const perFile = (row: ThroughputRow): string => `${fixed((row.seconds * 1e6) / row.notes, 0)} µs`;
  const firstImports = rows.filter((r) => r.label.endsWith('first import'));
  const readingLeads = firstImports.length > 0 && firstImports.every((r) => (r.phases?.['database idle: list, read, wait'] ?? 0) >= databaseMs(r));
  lines.push(
    (readingLeads ? 'Reading the files costs kgate more than its database does. ' : '') +
      `The import's reader (\`readNoteFiles\`: batches of 250 callback \`fs.readFile\` calls in flight at once) ` +
      `costs ${perFile(readOnly)} per note here, against ${perFile(reference)} with \`readFileSync\`: each ` +
      `\`readFile\` is an open, a stat, a read and a close through libuv's thread pool, which the batches overlap. ` +
      readsInside(rows, readOnly) +
      `Storing in SQLite adds only ${fixed((sum([sqlite.phases?.['prepare batches'], sqlite.phases?.['SQLite insert + commit']]) / 1000), 2)} s ` +
      `(hash + insert) to baseline A's ${fixed(readOnly.seconds, 2)} s.`,
  );
  for (const engine of ['PGlite', 'PostgreSQL']) {
    const first = rows.find((r) => r.system === engine && r.label.endsWith('first import'));
    const second = rows.find((r) => r.system === engine && r.label.endsWith('second import'));
    if (!first || !second) continue;
    const phases = first.phases ?? {};
    const dbMs = databaseMs(first);
    const sqlPhases = PHASES.filter((p) => p.startsWith('SQL:') || p.startsWith('BEGIN'))
      .map((p) => ({ p, ms: phases[p] ?? 0 }))
      .sort((x, y) => y.ms - x.ms);
    const [top, next] = sqlPhases;
    lines.push(
      `On ${engine}, a first import stores ${fixed(first.notesPerSecond, 0)} notes/s, ` +
        `${percent(first.notesPerSecond, sqlite.notesPerSecond)} of the SQLite baseline's rate and ` +
        `${percent(first.notesPerSecond, readOnly.notesPerSecond)} of reading the files alone. ` +
        `Of its ${fixed(first.seconds, 1)} s, the database writes for ${fixed(dbMs / 1000, 1)} s ` +
        `(SQLite's inserts: ${fixed((sqlite.phases?.['SQLite insert + commit'] ?? 0) / 1000, 2)} s)` +
        (top && next ? `, mostly ${top.p.replace('SQL: ', '')} (${fixed(top.ms / 1000, 1)} s) and ${next.p.replace('SQL: ', '')} (${fixed(next.ms / 1000, 1)} s)` : '') +
        `, and has nothing to write for ${fixed((phases['database idle: list, read, wait'] ?? 0) / 1000, 1)} s ` +
        `(listing the folder, the first batch, waits for the reader); parsing the notes takes ` +
        `${fixed((phases['parse batches, beside the writes'] ?? 0) / 1000, 1)} s in all, beside the writes` +
        `. A second import of the unchanged folder runs at ${fixed(second.notesPerSecond, 0)} notes/s, ` +
        `${percent(second.notesPerSecond, readOnly.notesPerSecond)} of reading the files alone: ` +
        `the database spends ${fixed(databaseMs(second) / 1000, 2)} s finding that nothing changed.`,
    );
  }
  const commands = ['PGlite', 'PostgreSQL'].flatMap((engine) => {
    const row = rows.find((r) => r.label === commandLabel(engine));
    const inside = rows.find((r) => r.system === engine && r.label.endsWith('first import'));
    return row && inside ? [{ engine, row, inside }] : [];
  });
  if (commands.length > 0) {
    lines.push(
      'The whole `kgate import` command, from spawn to exit, adds starting Node.js, opening and migrating the ' +
        'database and the report to the import itself: ' +
        commands
          .map(({ engine, row, inside }) => `${fixed(row.notesPerSecond, 0)} notes/s on ${engine} (${fixed(row.seconds - inside.seconds, 1)} s more than the import alone)`)
          .join(', ') +
        '. Issue 13 asks for 2,500 notes/s on both.',
    );
  }
  return lines;
}

/** The phase table: seconds and share of the run per phase, one column per run timed by phase. */
function phaseTable(timed: readonly ThroughputRow[]): string[] {
  const present = PHASES.filter((p) => timed.some((r) => (r.phases?.[p] ?? 0) > 0));
  const short = (label: string): string =>
    label.replace(/^Baseline B.*$/, 'Baseline B').replace(/^kgate on (\S+), (first|second) import$/, '$1 $2');
  return [
    `| Phase | ${timed.map((r) => short(r.label)).join(' | ')} |`,
    `|---|${timed.map(() => '--:').join('|')}|`,
    ...present.map(
      (p) =>
        `| ${p} | ${timed
          .map((r) => {
            const ms = r.phases?.[p];
            return ms === undefined ? '–' : `${fixed(ms / 1000, 2)} (${percent(ms, r.seconds * 1000)})`;
          })
          .join(' | ')} |`,
    ),
  ];
}

/** Renders a measured result as the Markdown of the "Import throughput" section (tables, setup, reading). */
export function importThroughputReport(result: ImportThroughputResult): BenchmarkReport {
  const rangeHeader = result.repeat > 1 ? `Seconds (median of ${result.repeat})` : 'Seconds';
  const table = [
    `| Run | Notes | ${rangeHeader} | Range (s) | Notes/s | Outcome (checked) |`,
    '|---|--:|--:|--:|--:|---|',
    ...result.rows.map(
      (r) =>
        `| ${r.label} | ${count(r.notes)} | ${fixed(r.seconds, 2)} | ${fixed(r.range[0], 2)}–${fixed(r.range[1], 2)} | ` +
        `${fixed(r.notesPerSecond, 0)} | ${r.outcome} |`,
    ),
  ];
  const details: string[] = [];
  details.push(
    `- Vault: ${count(result.notes)} synthetic notes (seed ${result.seed}, ${(result.bytes / 1e6).toFixed(1)} MB) from ` +
      '`bench/vault-generator.ts`, written to a temporary folder just before, so reads come from the page cache.',
    `- Engines: ${Object.entries(result.engines)
      .map(([name, version]) => `${name} ${version}`)
      .join('; ')}.`,
    `- Each repetition uses fresh databases; opening + migrating them is not timed ` +
      `(${Object.entries(result.openSeconds)
        .map(([name, s]) => `${name} ${fixed(s, 1)} s`)
        .join(', ')}).`,
    ...result.skipped.map((s) => `- **${s.engine} was skipped:** ${s.reason}.`),
  );
  const timed = result.rows.filter((r) => r.phases);
  if (timed.length > 0) {
    details.push(
      '',
      'Where the time goes, in seconds (share of the run), for the median repetition:',
      '',
      ...phaseTable(timed),
      '',
      'For baseline B, "read files" is listing and reading, "prepare batches" the SHA-256. kgate reads and parses the ' +
        'next batch while its database writes the current one, so its rows are those of the writer, which add up to ' +
        'the run: the SQL rows are statement round trips measured at the database port, "BEGIN/COMMIT + JS while ' +
        'writing" is the rest of each batch\'s write (`importPrepared`), and "database idle" is the time with no batch ' +
        'being written (listing the folder, reading and parsing the first batch, waits for the reader). "parse batches, ' +
        'beside the writes" is `prepareImport` (path checks, SHA-256, titles, the Markdown model), on the main thread ' +
        'while the database works: it overlaps the other rows and is not part of their sum.',
    );
  }
  const reading = interpretation(result);
  if (reading.length > 0) details.push('', reading.join('\n\n'));
  if (result.failures.length > 0) {
    details.push('', '**The import is broken; these numbers are meaningless:**', '', ...result.failures.map((f) => `- ${f}`));
  }
  return { table, details, failures: result.failures };
}
