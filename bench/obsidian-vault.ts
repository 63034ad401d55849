/**
 * Whole Obsidian vaults (`npm run bench -- --only obsidian-vault`): how fast `kgate import` stores a vault's canvases
 * and attachments beside its notes, and `kgate export` writes them back, on embedded PGlite and on server PostgreSQL,
 * against copying the same folder with the file system (`fs.cp`, recursive) in the same run. The export is checked
 * byte for byte against the folder; a difference fails the benchmark.
 */
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createServices } from '../src/app/services.ts';
import { openDatabase } from '../src/app/database.ts';
import { exportFolder } from '../src/cli/export-folder.ts';
import { importFolder } from '../src/cli/import-folder.ts';
import { loadConfig } from '../src/config.ts';
import type { Actor } from '../src/kernel/principal.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count, fixed } from './support/format.ts';
import { benchServerUrl, createScratchDatabase } from './support/scratch-postgres.ts';
import { median } from './support/stats.ts';
import { writeSyntheticVault } from './vault-generator.ts';

const NOTES = 500;
const CANVASES = 40;
// Attachments as a note-taker's vault holds them: many screenshots, some PDFs, a few recordings.
const ATTACHMENTS = [
  { ext: 'png', files: 160, bytes: 180 * 1024, head: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { ext: 'pdf', files: 30, bytes: 900 * 1024, head: Buffer.from('%PDF-1.7\n') },
  { ext: 'mp3', files: 10, bytes: 3 * 1024 * 1024, head: Buffer.from('ID3') },
] as const;

interface Row {
  label: string;
  engine: string;
  ms: number;
  outcome: string;
}

/** Writes the synthetic vault with canvases, attachments and an `.obsidian/` folder; returns its file bytes. */
async function writeVault(dir: string, seed: number): Promise<{ files: number; bytes: number }> {
  await writeSyntheticVault(dir, { notes: NOTES, seed });
  await mkdir(join(dir, 'Attachments'), { recursive: true });
  await mkdir(join(dir, 'Canvases'), { recursive: true });
  await mkdir(join(dir, '.obsidian'), { recursive: true });
  await writeFile(join(dir, '.obsidian', 'app.json'), '{"attachmentFolderPath":"Attachments"}\n');
  for (const kind of ATTACHMENTS) {
    for (let k = 0; k < kind.files; k += 1) {
      await writeFile(join(dir, 'Attachments', `${kind.ext}-${k}.${kind.ext}`), Buffer.concat([kind.head, randomBytes(kind.bytes - kind.head.length)]));
    }
  }
  for (let k = 0; k < CANVASES; k += 1) {
    const nodes = Array.from({ length: 30 }, (_, n) => ({ id: `n${n}`, type: 'text', text: `Card ${n} of canvas ${k}`, x: n * 40, y: n * 30, width: 200, height: 60 }));
    await writeFile(join(dir, 'Canvases', `Board ${k}.canvas`), `${JSON.stringify({ nodes, edges: [] }, null, '\t')}\n`);
  }
  return tally(dir);
}

async function listFiles(dir: string, root = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full, root)));
    else out.push(relative(root, full));
  }
  return out.sort();
}

async function tally(dir: string): Promise<{ files: number; bytes: number }> {
  const files = await listFiles(dir);
  let bytes = 0;
  for (const file of files) bytes += (await readFile(join(dir, file))).length;
  return { files: files.length, bytes };
}

/** The differences between two folders' visible files (names and bytes); empty when they are identical. */
async function differences(a: string, b: string): Promise<string[]> {
  const [left, right] = [await listFiles(a), await listFiles(b)];
  const out: string[] = [];
  if (left.join('\n') !== right.join('\n')) out.push(`file lists differ (${left.length} against ${right.length})`);
  for (const file of left.filter((path) => right.includes(path))) {
    const hash = async (dir: string) => createHash('sha256').update(await readFile(join(dir, file))).digest('hex');
    if ((await hash(a)) !== (await hash(b))) out.push(`${file} differs`);
  }
  return out;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** First import, second import (unchanged) and export on one fresh database; the export checked against the vault. */
async function runEngine(engine: string, env: Record<string, string>, vault: string, root: string, failures: string[]): Promise<Row[]> {
  const opened = await openDatabase(loadConfig(env), 'kgate-bench');
  try {
    const services = createServices(opened.db);
    const owner = await services.onboarding.bootstrapOwner({ email: 'bench@kgate.invalid' });
    const actor: Actor = { accountId: owner.accountId, credentialKind: 'operator', client: 'kgate-bench' };
    const rows: Row[] = [];
    for (const pass of ['first import', 'second import'] as const) {
      const { ms, value } = await timed(() => importFolder(services.notes, actor, owner.mapping.id, vault, { files: services.files, ownDatabase: true }));
      const files = value.files;
      rows.push({
        label: `kgate import, ${pass}`,
        engine,
        ms,
        outcome: `notes ${value.created} created, ${value.unchanged} unchanged; files ${files.created} created, ${files.unchanged} unchanged`,
      });
      if (value.rejected.length > 0) failures.push(`${engine} ${pass}: ${value.rejected.length} rejected (${value.rejected[0]!.path}: ${value.rejected[0]!.reason})`);
    }
    const out = join(root, `export-${engine}`);
    const exported = await timed(() => exportFolder(services.notes, actor, owner.mapping.id, out, { files: services.files }));
    rows.push({ label: 'kgate export', engine, ms: exported.ms, outcome: `${count(exported.value.notes)} notes, ${count(exported.value.files)} files` });
    const diff = await differences(vault, out);
    if (diff.length > 0) failures.push(`${engine}: the export differs from the vault: ${diff.slice(0, 3).join('; ')}`);
    await rm(out, { recursive: true, force: true });
    return rows;
  } finally {
    await opened.close();
  }
}

async function measure(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const root = await mkdtemp(join(tmpdir(), 'kgate-bench-obsidian-'));
  const failures: string[] = [];
  const rows: Row[] = [];
  const skipped: string[] = [];
  try {
    const vault = join(root, 'vault');
    const size = await writeVault(vault, options.seed);
    // The baseline: the file system copying the same folder (hidden entries included, as cp does), median of runs.
    const copies: number[] = [];
    for (let k = 0; k < Math.max(3, options.repeat); k += 1) {
      const target = join(root, `copy-${k}`);
      copies.push((await timed(() => cp(vault, target, { recursive: true }))).ms);
      await rm(target, { recursive: true, force: true });
    }
    rows.push({ label: 'baseline: `fs.cp` of the folder (recursive)', engine: 'file system', ms: median(copies), outcome: `${count(size.files)} files` });
    rows.push(...(await runEngine('PGlite', { KGATE_DATA_DIR: join(root, 'data') }, vault, root, failures)));
    const scratch = await createScratchDatabase(benchServerUrl());
    if ('skipped' in scratch) skipped.push(scratch.skipped);
    else {
      try {
        rows.push(...(await runEngine('PostgreSQL', { DATABASE_URL: scratch.url }, vault, root, failures)));
      } finally {
        await scratch.drop();
      }
    }
    const mb = size.bytes / (1024 * 1024);
    const base = rows[0]!.ms;
    const table = [
      '| Step | Database | Seconds | MiB/s | vs `fs.cp` | Outcome |',
      '|---|---|--:|--:|--:|---|',
      ...rows.map((row, k) => `| ${row.label} | ${row.engine} | ${fixed(row.ms / 1000, 2)} | ${fixed(mb / (row.ms / 1000), 1)} | ${k === 0 ? 'baseline' : `${fixed(row.ms / base, 1)}× the time`} | ${row.outcome} |`),
    ];
    const details = [
      `- The vault: ${count(NOTES)} synthetic notes (seed ${options.seed}), ${CANVASES} canvases of 30 cards, ` +
        ATTACHMENTS.map((kind) => `${kind.files} ${kind.ext.toUpperCase()} files of ${count(Math.round(kind.bytes / 1024))} KiB`).join(', ') +
        `, and an \`.obsidian/\` folder (skipped by kgate, copied by \`fs.cp\`): ${count(size.files)} visible files, ${fixed(mb, 1)} MiB.`,
      '- kgate: `importFolder` and `exportFolder` as `kgate import` and `kgate export` run them with the database to themselves, in process, on a fresh database per engine. ' +
        'Every exported file is compared with the original by SHA-256; a difference fails the benchmark.',
      ...skipped.map((reason) => `- PostgreSQL skipped: ${reason}.`),
    ];
    return { table, details, failures };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The benchmark as `bench/run.ts` runs it. */
export const obsidianVaultBenchmark: Benchmark = { title: 'Obsidian vault', run: measure };
