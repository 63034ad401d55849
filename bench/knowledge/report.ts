/**
 * The "Knowledge compilation" section of docs/benchmarks.md, rendered from a measured result: the cost per applied
 * change (compiled against not compiled, same run, same database), then the background compiler over the whole
 * vault beside its baselines, and sentences that read the numbers.
 */
import type { BenchmarkReport } from '../support/benchmark.ts';
import { count, fixed } from '../support/format.ts';
import { percentile } from '../support/stats.ts';
import { APPLY_VAULT_NOTES, type ApplyCostResult, type ApplySamples } from './apply-cost.ts';
import type { BacklogPass, BacklogResult } from './backlog.ts';

/** Everything the benchmark measured. */
export interface KnowledgeCompilationResult {
  notes: number;
  seed: number;
  repeat: number;
  /** Engine name to version line. */
  engines: Record<string, string>;
  apply: ApplyCostResult[];
  backlog: BacklogResult[];
  skipped: Array<{ engine: string; reason: string }>;
  /** The machine's 1-minute load average before and after: other work on the 2 cores makes every figure slower. */
  load: { before: number; after: number };
  failures: string[];
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

const PASS_NAMES: Record<BacklogPass['key'], string> = {
  read: 'baseline: read every note\'s content from the database (pages of 1,000)',
  'compile-in-memory': 'baseline: compile those contents in memory, no database',
  reindex: 'baseline: re-derive every note\'s Markdown model (the reindex at start)',
  backlog: '**`compileBacklog` from nothing** (records, versions, change events)',
};
const PASS_ORDER: readonly BacklogPass['key'][] = ['read', 'compile-in-memory', 'backlog', 'reindex'];

function applyRows(result: ApplyCostResult): string[] {
  const rows: string[] = [];
  const byWorkload = new Map<string, ApplySamples[]>();
  for (const s of result.samples) byWorkload.set(s.workload, [...(byWorkload.get(s.workload) ?? []), s]);
  for (const samples of byWorkload.values()) {
    const off = samples.find((s) => s.variant === 'not compiled');
    for (const s of [...samples].sort((a) => (a.variant === 'not compiled' ? -1 : 1))) {
      const m = mean(s.ms);
      const cost = s.variant === 'not compiled' || !off ? 'baseline' : `+${fixed(m - mean(off.ms), 2)} ms (+${fixed((100 * (m - mean(off.ms))) / mean(off.ms), 0)}%)`;
      rows.push(
        `| ${s.notesPerApply} note${s.notesPerApply > 1 ? 's' : ''} per apply | ${result.engine} | ${s.variant} | ${count(s.ms.length)} | ${fixed(1000 / m, 0)} | ` +
          `${fixed(percentile(s.ms, 50), 2)} | ${fixed(percentile(s.ms, 95), 2)} | ${fixed(m, 2)} | ${cost} |`,
      );
    }
  }
  return rows;
}

function backlogRows(result: BacklogResult): string[] {
  const read = result.passes.find((p) => p.key === 'read');
  return PASS_ORDER.flatMap((key) => {
    const pass = result.passes.find((p) => p.key === key);
    if (!pass) return [];
    const seconds = pass.ms / 1000;
    const records = pass.records === undefined ? '' : fixed(pass.records / seconds, 0);
    const versus = key === 'read' || !read ? 'baseline' : `${fixed(pass.ms / read.ms, 1)}×`;
    return [`| ${PASS_NAMES[key]} | ${result.engine} | ${fixed(seconds, 2)} | ${fixed(pass.notes / seconds, 0)} | ${records} | ${versus} |`];
  });
}

/** Sentences that read the numbers. */
function interpretation(result: KnowledgeCompilationResult): string[] {
  const lines: string[] = [];
  for (const apply of result.apply) {
    const parts = [...new Set(apply.samples.map((s) => s.workload))].map((workload) => {
      const on = apply.samples.find((s) => s.workload === workload && s.variant === 'compiled');
      const off = apply.samples.find((s) => s.workload === workload && s.variant === 'not compiled');
      if (!on || !off) return '';
      const extra = mean(on.ms) - mean(off.ms);
      return `${fixed(extra, 2)} ms per apply of ${on.notesPerApply} (${fixed(extra / on.notesPerApply, 2)} ms per note)`;
    });
    lines.push(`On ${apply.engine}, compiling in the apply's transaction costs ${parts.filter(Boolean).join(' and ')}.`);
  }
  for (const backlog of result.backlog) {
    const pass = (key: BacklogPass['key']) => backlog.passes.find((p) => p.key === key);
    const [compile, cpu, read] = [pass('backlog'), pass('compile-in-memory'), pass('read')];
    if (!compile || !cpu || !read || compile.records === undefined) continue;
    const finding = compile.findingMs ?? 0;
    const writing = Math.max(0, compile.ms - finding - cpu.ms - read.ms);
    lines.push(
      `On ${backlog.engine}, the background compiler took ${fixed(compile.ms / 1000, 1)} s for ${count(compile.notes)} notes and ${count(compile.records)} records: ` +
        `${fixed(finding / 1000, 1)} s finding the next batch (one query over every note of every vault before each batch of 100), ` +
        `about ${fixed(cpu.ms / 1000, 1)} s the compiler's own CPU and ${fixed(read.ms / 1000, 1)} s reading the notes (as the baselines take them), ` +
        `which leaves about ${fixed(writing / 1000, 1)} s for the batches' writes of records, versions and change events under the vault's lock.`,
    );
  }
  return lines;
}

/** Renders the section. */
export function knowledgeCompilationReport(result: KnowledgeCompilationResult): BenchmarkReport {
  const table = [
    '| Workload | Database | Compilation | Applies | Applies/s (one client) | p50 (ms) | p95 (ms) | Mean (ms) | Cost of compilation per apply |',
    '|---|---|---|--:|--:|--:|--:|--:|--:|',
    ...result.apply.flatMap(applyRows),
  ];
  const details = [
    `- Applies: kgate's notes service in-process (no HTTP), each apply a governed write as a client's (\`idempotency.run\` + \`runTransaction\`, \`dryRun: false\`, the current hash of every note), ` +
      `one client, sequential. Two vaults of the same ${count(APPLY_VAULT_NOTES)} generated notes (seed ${result.seed + 1}) on one database: one written through the service as the gateway wires it ` +
      '(knowledge compiled in the transaction), one through the same service not told of changes. Each apply adds a follow-up task (owner, due date, block id) to its notes; ' +
      'blocks of 50 (10 for ten notes) alternate between the two, the first block of each is a warm-up. Every apply is checked to update its notes, and the records gained are checked. ' +
      'One client measures the time compilation adds to an apply; with many clients applying to one vault it is also time the vault\'s lock is held, which the before-and-after benchmark (`--scenario apply10`) measures under load.',
    '',
    `| Pass over the ${count(result.notes)}-note vault | Database | Seconds | Notes/s | Records/s | Time vs reading |`,
    '|---|---|--:|--:|--:|--:|',
    ...result.backlog.flatMap(backlogRows),
    '',
    `- Vault: \`bench/vault-generator.ts\`, ${count(result.notes)} notes, seed ${result.seed}, with its knowledge material (\`bench/vault-knowledge.ts\`), stored through the notes service not told of changes ` +
      `(so nothing is compiled), then each pass run ${result.repeat} times on the same database, the median reported. Before each \`compileBacklog\` every knowledge row is deleted, before each reindex every note is marked stale, and then the tables are vacuumed and analyzed (PGlite has no autovacuum), as a fresh start would find them. ` +
      'Counts are checked: every note compiled, and as many records as `compileNote` gives note by note.',
    `- Engines: ${Object.entries(result.engines).map(([name, version]) => `${name} ${version}`).join('; ')}.`,
    ...result.skipped.map((s) => `- ${s.engine} skipped: ${s.reason}.`),
    `- Load average (1 minute) before the run ${fixed(result.load.before, 2)}, after it ${fixed(result.load.after, 2)}, on 2 cores: the benchmark itself keeps one to two busy (its thread and PGlite's, or PostgreSQL's backend), so above 2 other work shared the machine and the figures are slower than on a quiet one.`,
    '',
    ...interpretation(result),
  ];
  return { table, details, failures: result.failures };
}
