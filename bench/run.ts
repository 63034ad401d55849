/**
 * The one entry point of kgate's benchmarks:
 * `npm run bench [-- --notes N] [--seed S] [--repeat R] [--duration S] [--only NAME] [--baseline REF] [--scenario KEY] [--write]`.
 *
 * Runs every benchmark in BENCHMARKS, prints the machine facts and one Markdown section per benchmark to stdout
 * (progress goes to stderr), and with `--write` replaces each benchmark's section of docs/benchmarks.md, keeping
 * the rest of the file. Exits non-zero when a benchmark reports failures (and then writes nothing). `--only NAME`
 * (repeatable) runs only the named benchmarks: NAME is the title in lower case with dashes, e.g. `http-throughput`.
 * Benchmarks in ON_REQUEST run only when `--only` names them: `--only before-and-after [--baseline REF]` measures
 * the working tree against an older commit (default: where this branch left `main`, or `HEAD~1` on `main`);
 * `--scenario KEY` (repeatable) measures only those of its scenarios (`before-after/scenarios.ts`, KEYS).
 * `--duration S` measures each row of the load benchmarks (HTTP and MCP throughput, before and after) for S seconds
 * instead of 10, with a warm-up of min(3, S) s: a smoke run, e.g. `npm run bench -- --only mcp-throughput
 * --duration 2`, checks that every scenario works in about a minute (its numbers are noisier; the report states the
 * duration).
 *
 * Adding a benchmark: export a {@link Benchmark} from its module and add it to BENCHMARKS (or ON_REQUEST). Shared
 * pieces are in `bench/support/`: the Benchmark contract, machine facts, scratch PostgreSQL databases, number
 * formatting, clean-ups on Ctrl-C.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fileLinksBenchmark } from './file-links.ts';
import { obsidianVaultBenchmark } from './obsidian-vault.ts';
import { automationBenchmark } from './automation.ts';
import { beforeAndAfter } from './before-after.ts';
import { coldStart } from './cold-start.ts';
import { educationAnalysisBenchmark } from './education-analysis.ts';
import { educationGenerationBenchmark } from './education-generation.ts';
import { httpThroughput } from './http-throughput.ts';
import { workspacePages } from './workspace-pages.ts';
import { importThroughput } from './import-throughput.ts';
import { knowledgeCompilation } from './knowledge-compile.ts';
import { knowledgeTools } from './knowledge-tools.ts';
import { mcpThroughput } from './mcp-throughput.ts';
import { productRuntimeBenchmark } from './product-runtime.ts';
import { sectionWritesBenchmark } from './section-writes.ts';
import { proposalsBenchmark } from './proposals.ts';
import { publishedIntelligenceBenchmark } from './published-intelligence.ts';
import { remoteMappingsBenchmark } from './remote-mappings.ts';
import { vaultSearch } from './search-throughput.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { machineFacts } from './support/machine.ts';

/** Every benchmark `npm run bench` runs, in order. */
export const BENCHMARKS: readonly Benchmark[] = [importThroughput, httpThroughput, mcpThroughput, vaultSearch, coldStart, workspacePages, knowledgeCompilation, knowledgeTools, proposalsBenchmark, remoteMappingsBenchmark, productRuntimeBenchmark, publishedIntelligenceBenchmark, educationAnalysisBenchmark, educationGenerationBenchmark, automationBenchmark, obsidianVaultBenchmark, sectionWritesBenchmark, fileLinksBenchmark];

/**
 * Benchmarks that run only when `--only` names them: the before-and-after comparison checks out another commit and
 * takes about 25 minutes, for a question (is this change slower?) asked of a branch, not of every run.
 */
export const ON_REQUEST: readonly Benchmark[] = [beforeAndAfter];

/** The name `--only` selects a benchmark by: its title in lower case with dashes, e.g. "http-throughput". */
export function benchmarkName(benchmark: Benchmark): string {
  return benchmark.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * The benchmarks a run measures, in order: all of BENCHMARKS without `--only`, else those it names (ON_REQUEST ones
 * included). Throws on an unknown name, and on `--baseline` without the benchmark that uses it.
 */
export function selectBenchmarks(only: readonly string[], baseline: string | undefined): Benchmark[] {
  const known = [...BENCHMARKS, ...ON_REQUEST];
  const unknown = only.filter((name) => !known.some((b) => benchmarkName(b) === name));
  if (unknown.length > 0) {
    throw new Error(`--only: unknown benchmark ${unknown.join(', ')}; known: ${known.map(benchmarkName).join(', ')}`);
  }
  const selected = only.length === 0 ? [...BENCHMARKS] : known.filter((b) => only.includes(benchmarkName(b)));
  if (baseline !== undefined && !selected.includes(beforeAndAfter)) {
    throw new Error(`--baseline applies to ${benchmarkName(beforeAndAfter)} only: add --only ${benchmarkName(beforeAndAfter)}`);
  }
  return selected;
}

const DOC_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'benchmarks.md');

const DOC_HEADER = `# Benchmarks

Run them with \`npm run bench\` (options after \`--\`: \`--notes N\`, vault size, default 20,000;
\`--seed S\`, default 42; \`--repeat R\`, repetitions of each run whose median is reported, default 3;
\`--duration S\`, seconds each row of the load benchmarks (HTTP and MCP throughput, before and after) is measured,
default 10, for smoke runs;
\`--only NAME\`, run only that benchmark, e.g. \`--only http-throughput\`).
\`npm run bench -- --only before-and-after --baseline REF\` compares the working tree with commit REF in the same run
(default: where this branch left \`main\`, or \`HEAD~1\` on \`main\`); it runs only when named, and
\`--scenario KEY\` (repeatable, e.g. \`--scenario apply10\`) limits it to those scenarios beside hello-world.
\`npm run bench -- --write\` runs them and rewrites each benchmark's section below; other sections are kept.
The code is in \`bench/\`: \`bench/run.ts\` is the entry point, one module per benchmark.

Numbers are from a small 2-core machine (the development VM described in each section), not production hardware:
compare rows within a section, measured in the same run, rather than absolute values across machines.
`;

/** The Markdown section of one benchmark (heading, machine, table, details). */
function section(title: string, facts: readonly string[], report: BenchmarkReport): string {
  return [`## ${title}`, '', ...facts, '', ...report.table, '', ...report.details].join('\n').trimEnd() + '\n';
}

/** Replaces the `## title` section of a Markdown document (up to the next `## ` heading), or appends it. */
export function replaceSection(doc: string, title: string, body: string): string {
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${title}`);
  if (start < 0) return `${doc.trimEnd()}\n\n${body}`;
  let end = lines.findIndex((line, k) => k > start && /^## /.test(line));
  if (end < 0) end = lines.length;
  const before = lines.slice(0, start).join('\n').trim();
  const after = lines.slice(end).join('\n').trim();
  return [before, body.trim(), after].filter((part) => part !== '').join('\n\n') + '\n';
}

function parseCount(flag: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${flag} expects an integer >= ${min}, got ${value}`);
  return n;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      notes: { type: 'string' },
      seed: { type: 'string' },
      repeat: { type: 'string' },
      duration: { type: 'string' },
      only: { type: 'string', multiple: true },
      baseline: { type: 'string' },
      scenario: { type: 'string', multiple: true },
      write: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const options: BenchmarkOptions = {
    notes: parseCount('notes', values.notes, 20_000, 1),
    seed: parseCount('seed', values.seed, 42, 0),
    repeat: parseCount('repeat', values.repeat, 3, 1),
    ...(values.duration === undefined ? {} : { duration: parseCount('duration', values.duration, 10, 1) }),
    ...(values.baseline === undefined ? {} : { baseline: values.baseline }),
    ...(values.scenario === undefined ? {} : { scenarios: values.scenario }),
  };
  const selected = selectBenchmarks(values.only ?? [], values.baseline);
  const started = performance.now();
  const facts = machineFacts();
  const sections: Array<{ title: string; body: string }> = [];
  const failures: string[] = [];
  for (const benchmark of selected) {
    process.stderr.write(`# ${benchmark.title}\n`);
    const report = await benchmark.run(options);
    sections.push({ title: benchmark.title, body: section(benchmark.title, facts, report) });
    failures.push(...report.failures.map((f) => `${benchmark.title}: ${f}`));
  }
  process.stdout.write(sections.map((s) => s.body).join('\n'));
  process.stderr.write(`benchmarks took ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  if (failures.length > 0) {
    process.stderr.write(`FAILED (nothing written):\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
    return 1;
  }
  if (values.write) {
    let doc = existsSync(DOC_PATH) ? readFileSync(DOC_PATH, 'utf8') : DOC_HEADER;
    for (const s of sections) doc = replaceSection(doc, s.title, s.body);
    await writeFile(DOC_PATH, doc);
    process.stderr.write(`wrote ${DOC_PATH}\n`);
  }
  return 0;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
