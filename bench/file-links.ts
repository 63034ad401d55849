/**
 * Links to canvases and attachments (`npm run bench -- --only file-links`): what a note's relations cost when its
 * links and embeds name stored files by name (`![[diagram-17.png]]`, `[[spec-3.pdf]]`) in a vault that keeps many
 * files, on embedded PGlite and on server PostgreSQL. Measured with the name index of migration 0028 and, in the
 * same run on the same data, without it (the index dropped, then made again): the baseline is what every relations
 * read cost before, a scan of all of the vault's files. Also a file's backlinks (the notes that link to it, shown
 * on its workspace page) against a note's relations with as many backlinks.
 */
import { createServices, type Services } from '../src/app/services.ts';
import type { KgateEngine } from './search/kgate-engine.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { onBothEngines } from './support/both-engines.ts';
import { count, fixed } from './support/format.ts';
import { percentile } from './support/stats.ts';

/** Stored files of the vault: images, PDFs and canvases in 100 folders. */
const FILES = 20_000;
const BATCH = 500;
/** Links and embeds of the measured note that name files, and links to notes. */
const FILE_TARGETS = 20;
const NOTE_TARGETS = 10;
const WARMUP = 10;
const CALLS = 200;
const NOTE_PATH = 'Bench/Linked files.md';
/** Notes that each link to one stored file and to one note, for the backlinks rows. */
const LINKERS = 50;
const LINKED_FILE = 2;
const TARGET_NOTE = 'Bench/Target.md';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

interface Row {
  what: string;
  p50: number;
  p95: number;
}

/** The i-th stored file: its path and bytes (a PNG signature, a PDF header, or an empty canvas). */
function fileOf(i: number): { path: string; content: Buffer } {
  const folder = `Files/f${i % 100}`;
  if (i % 3 === 0) return { path: `${folder}/diagram-${i}.png`, content: PNG };
  if (i % 3 === 1) return { path: `${folder}/spec-${i}.pdf`, content: Buffer.from(`%PDF-1.7\n${i}\n`) };
  return { path: `${folder}/board-${i}.canvas`, content: Buffer.from('{"nodes":[],"edges":[]}') };
}

/** The measured note: FILE_TARGETS links and embeds by file name, spread over the vault's files, and links to notes. */
function noteText(notePaths: readonly string[]): string {
  const lines = ['# Linked files', ''];
  for (let k = 0; k < FILE_TARGETS; k++) {
    const name = fileOf(Math.floor((k * FILES) / FILE_TARGETS) + 1).path.split('/').pop()!;
    lines.push(k % 2 === 0 ? `- ![[${name}]]` : `- [[${name}]]`);
  }
  for (const path of notePaths.slice(0, NOTE_TARGETS)) lines.push(`- [[${path.replace(/\.md$/, '')}]]`);
  return `${lines.join('\n')}\n`;
}

async function measureEngine(engine: KgateEngine): Promise<Row[]> {
  const services: Services = createServices(engine.db);
  const actor = engine.actor;
  for (let from = 0; from < FILES; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, FILES - from) }, (_, k) => fileOf(from + k));
    const result = await services.files.importFiles(actor, engine.mappingId, batch);
    if (result.rejected.length > 0) throw new Error(`files rejected: ${result.rejected[0]!.path} ${result.rejected[0]!.code}`);
  }
  const notes = await engine.db.query<{ path: string }>('SELECT path FROM notes n JOIN mappings m ON m.vault_id = n.vault_id WHERE m.id = $1 ORDER BY path LIMIT $2', [
    engine.mappingId,
    NOTE_TARGETS,
  ]);
  const linked = fileOf(LINKED_FILE).path;
  const linkers = Array.from({ length: LINKERS }, (_, k) => ({ path: `Bench/Linkers/Linker ${k}.md`, content: `[[${linked.split('/').pop()}]] and [[Target]]\n` }));
  await services.notes.importNotes(actor, engine.mappingId, [
    { path: NOTE_PATH, content: noteText(notes.map((n) => n.path)) },
    { path: TARGET_NOTE, content: '# Target\n' },
    ...linkers,
  ]);
  await engine.db.query('ANALYZE vault_files');

  const rows: Row[] = [];
  /** Times `read` (WARMUP calls first), which throws when its answer is wrong. */
  const timed = async (what: string, read: () => Promise<void>) => {
    const samples: number[] = [];
    for (let k = 0; k < WARMUP + CALLS; k++) {
      const at = performance.now();
      await read();
      if (k >= WARMUP) samples.push(performance.now() - at);
    }
    rows.push({ what, p50: percentile(samples, 50), p95: percentile(samples, 95) });
  };
  const backlinks = (what: string, count: () => Promise<number>) =>
    timed(what, async () => {
      const found = await count();
      if (found !== LINKERS) throw new Error(`${what}: ${found} backlinks, not ${LINKERS}`);
    });
  const time = (what: string) =>
    timed(what, async () => {
      const relations = await services.graph.relations(actor, engine.mappingId, { path: NOTE_PATH });
      const files = relations.embeds.filter((e) => e.file !== null).length + relations.fileLinks.length;
      if (files !== FILE_TARGETS || relations.outgoing.length !== NOTE_TARGETS) {
        throw new Error(`${what}: ${files} files and ${relations.outgoing.length} notes resolved, not ${FILE_TARGETS} and ${NOTE_TARGETS}`);
      }
    });
  await backlinks(`a note's relations, ${LINKERS} notes linking to it (baseline: note backlinks)`, async () =>
    (await services.graph.relations(actor, engine.mappingId, { path: TARGET_NOTE })).incoming.length,
  );
  await backlinks(`a file's backlinks, ${LINKERS} notes linking to it`, async () =>
    (await services.graph.fileIncoming(actor, engine.mappingId, { path: linked })).incoming.length,
  );
  await time(`relations of a note with ${FILE_TARGETS} links and embeds of files by name and ${NOTE_TARGETS} note links, with the file name index`);
  await engine.db.query('DROP INDEX vault_files_vault_name_idx');
  try {
    await time('the same, without the index (baseline: every file of the vault scanned)');
  } finally {
    await engine.db.query("CREATE INDEX vault_files_vault_name_idx ON vault_files (vault_id, (substring(path_key from '[^/]*$')))");
  }
  return rows;
}

async function run(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const small = { ...options, notes: Math.min(options.notes, 2_000) };
  const { results, details, failures } = await onBothEngines('file-links', small, (engine) => measureEngine(engine));
  const whats = results[0]?.value.map((row) => row.what) ?? [];
  const table = [
    `| Call (${count(FILES)} stored files in the vault) | ${results.map((r) => `${r.engine} p50 | ${r.engine} p95`).join(' | ')} |`,
    `|---|${results.map(() => '---:|---:').join('|')}|`,
    ...whats.map((what) => {
      const cells = results.map((r) => {
        const row = r.value.find((x) => x.what === what)!;
        return `${fixed(row.p50, 2)} ms | ${fixed(row.p95, 2)} ms`;
      });
      return `| ${what} | ${cells.join(' | ')} |`;
    }),
  ];
  details.unshift(
    `In-process \`services.graph.relations\` on a vault of ${count(small.notes)} synthetic notes and ${count(FILES)} stored files (a third each PNG, ` +
      `PDF and canvas, in 100 folders, imported through the files service); ${WARMUP} warm-up calls, then ${CALLS} sequential calls per row. ` +
      `Every answer must resolve all ${FILE_TARGETS} file targets and ${NOTE_TARGETS} note links. The baseline drops the index of migration 0028 ` +
      `in the same run and makes it again afterwards. The backlinks rows: ${LINKERS} notes that each link to one stored file and to one note; ` +
      "a file's backlinks are read as a note's incoming links are (candidates by name, each resolved from its note), so the note's relations " +
      'are their baseline.',
  );
  for (const { engine, value } of results) {
    const [, , indexed, scanned] = value;
    if (indexed && scanned) details.push('', `${engine}: the index makes the read ${fixed(scanned.p50 / indexed.p50, 1)} times faster at the median; without it the cost grows with the vault's files.`);
  }
  return { table, details, failures };
}

/** See the module comment. */
export const fileLinksBenchmark: Benchmark = { title: 'File links', run };
