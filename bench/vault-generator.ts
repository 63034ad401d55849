/**
 * Deterministic synthetic Obsidian-style vault generator for kgate benchmarks
 * (import throughput, full-text search, WikiLink graph, frontmatter schema).
 *
 * Everything is derived from a seed through a small hand-rolled PRNG, so the
 * same options always produce byte-identical output. Each note draws from its
 * own PRNG stream (seeded from `seed` and the note index), which makes paths,
 * names and headings of any note computable without generating the others.
 *
 * CLI: `npx tsx bench/vault-generator.ts OUT_DIR [--notes N] [--seed S] [--average-bytes B]`
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { addKnowledgeMaterial, knowledgeShareOf, type KnowledgeDraws } from './vault-knowledge.ts';

/** Options for {@link generateSyntheticVault} and {@link writeSyntheticVault}. */
export interface SyntheticVaultOptions {
  /** Number of notes to generate (default 20000). */
  notes?: number;
  /** PRNG seed; same seed and options give byte-identical output (default 42). */
  seed?: number;
  /** Target average note size in bytes; individual notes vary by about ±50% (default 2048). */
  averageBytes?: number;
}

/** One generated note: a vault-relative path (forward slashes, `.md`) and its Markdown content. */
export interface SyntheticNote {
  path: string;
  content: string;
}

/** A word that appears in exactly 1 of every 1000 consecutive notes (0.1%); not in the vocabulary. */
export const SYNTHETIC_RARE_TERM = 'quasarflux';

/** A word that appears in exactly 750 of every 1000 consecutive notes (75%); not in the vocabulary. */
export const SYNTHETIC_COMMON_TERM = 'workflow';

/** An exact three-word phrase that appears in exactly 1 of every 100 consecutive notes (1%); none of its words are in the vocabulary. */
export const SYNTHETIC_PHRASE = 'amber lighthouse protocol';

const DEFAULT_NOTES = 20000;
const DEFAULT_SEED = 42;
const DEFAULT_AVERAGE_BYTES = 2048;

const AREA_COUNT = 20;
const TOPICS_PER_AREA = 10;
const TOPIC_COUNT = AREA_COUNT * TOPICS_PER_AREA;
/** One note in SHARED_STRIDE gets a file name shared with notes in other folders. */
const SHARED_STRIDE = 20;

// ---------------------------------------------------------------------------
// Fixed vocabulary (embedded so output never depends on anything external).
// None of these may contain the special terms above; the test suite checks it.

const FUNCTION_WORDS: readonly string[] = (
  'the of and to in a is for that with on as by this we it from be are at or an ' +
  'should will can not our into about after before more some each when'
).split(' ');

const CONTENT_WORDS: readonly string[] = (
  'account action activity address advice agenda agreement analysis answer approach archive area ' +
  'argument article aspect assumption attention audience author balance baseline benefit book boundary ' +
  'branch budget bug build calendar campaign capacity change chapter chart checklist choice client ' +
  'cluster code comment community comparison concept conclusion conference config constraint context ' +
  'contract conversation cost course customer cycle dashboard data database deadline decision default ' +
  'delivery demand dependency deployment design detail developer diagram discussion document domain ' +
  'draft editor effort email energy engine environment error estimate event evidence example experiment ' +
  'expert feature feedback field figure file filter focus folder format framework function funding ' +
  'garden goal graph group growth guide habit handbook history hypothesis idea impact incident index ' +
  'input insight interface interview inventory issue journal kitchen knowledge label language layer ' +
  'layout lecture lesson library limit link list load logic loop manager map margin market material ' +
  'measure meeting memory message method metric milestone model module network note object offer ' +
  'option outcome outline output owner package page paper partner pattern payment people period phase ' +
  'pipeline plan platform policy portfolio practice priority problem process product profile progress ' +
  'project prompt proposal prototype quality query question queue range reader reason recipe record ' +
  'reference release report request requirement research resource response result review risk roadmap ' +
  'role routine rule sample schedule schema scope score script search season section server service ' +
  'session signal sketch skill source space sprint stage standard status step story strategy structure ' +
  'study style summary survey system table target task team template term test theme theory thread ' +
  'ticket timeline tool topic trade training trend update user value version vision volume week window ' +
  'worker writing accept adjust align analyze assess capture check clarify collect compare connect ' +
  'create define deliver describe discuss explore extend follow gather improve include launch merge ' +
  'migrate monitor organize prepare publish reduce refine remove replace resolve revisit share simplify ' +
  'support track validate verify write active annual basic brief careful central clear common complex ' +
  'current daily deep direct early easy effective external final flexible formal fresh general global ' +
  'hard important initial internal key large late local long main major manual minor monthly new next ' +
  'old open optional overall personal possible practical previous primary private public quick rapid ' +
  'rare raw real recent regular relevant remote shared short simple slow small solid specific stable ' +
  'strong technical typical useful various weekly'
).split(' ');

const TASK_VERBS: readonly string[] = (
  'Review Draft Update Schedule Email Prepare Check Finalize Outline Research Fix Call Plan Summarize ' +
  'Organize Share Test Document Refactor Read'
).split(' ');

const NOTE_TYPES: readonly string[] = ['note', 'project', 'meeting', 'reference', 'journal', 'idea', 'person', 'area', 'book'];
const STATUSES: readonly string[] = ['draft', 'active', 'review', 'done', 'archived'];

const TAGS: readonly string[] = [
  'project', 'meeting', 'idea', 'research', 'reading', 'todo', 'journal', 'review', 'design', 'health',
  'finance', 'travel', 'writing', 'learning', 'work/planning', 'work/ops', 'project/alpha', 'project/beta',
  'area/home', 'area/career', 'status/waiting', 'ref/book', 'ref/article', 'person', 'recipe', 'habit',
];

const HEADINGS: readonly string[] = [
  'Overview', 'Background', 'Notes', 'Next Steps', 'Open Questions', 'References', 'Summary', 'Details',
  'Decisions', 'Ideas', 'Context', 'Log',
];

/** File names deliberately reused across folders to exercise ambiguous link resolution. */
const SHARED_NAMES: readonly string[] = [
  'index', 'readme', 'inbox', 'ideas', 'todo', 'meeting-notes', 'weekly-review', 'reading-list',
  'project-overview', 'references', 'glossary', 'retrospective', 'roadmap', 'daily-log', 'scratchpad',
  'decisions', 'open-questions', 'summary', 'changelog', 'backlog', 'contacts', 'resources', 'goals',
  'journal', 'templates',
];

/** CONTENT_WORDS in a fixed pseudo-random frequency rank (so frequent words are not all early in the alphabet). */
const RANKED_WORDS: readonly string[] = [...CONTENT_WORDS]
  .map((w) => {
    let h = 0;
    for (let k = 0; k < w.length; k++) h = fmix32(h ^ w.charCodeAt(k));
    return { w, h };
  })
  .sort((a, b) => a.h - b.h || (a.w < b.w ? -1 : 1))
  .map((x) => x.w);

/** Rough average sentence length in characters, used to spread inline items over the body. */
const AVG_SENTENCE_CHARS = 72;

// ---------------------------------------------------------------------------
// PRNG

/** 32-bit finaliser (murmur3 fmix32): a cheap, well-mixed integer hash. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash (seed, index, salt) to a 32-bit value; used to seed independent per-note streams. */
function hash3(seed: number, index: number, salt: number): number {
  let h = fmix32(seed ^ 0x9e3779b9);
  h = fmix32(h ^ (index >>> 0) ^ Math.imul(Math.floor(index / 0x100000000), 0x27d4eb2f));
  return fmix32(h + Math.imul(salt, 0x165667b1));
}

/** mulberry32: tiny, fast, deterministic 32-bit PRNG. */
class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next uniformly distributed uint32. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max] (inclusive). */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** Uniform element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
}

// ---------------------------------------------------------------------------
// Per-vault context and random-access note properties

interface Context {
  seed: number;
  notes: number;
  averageBytes: number;
  nameWidth: number;
  sharedOffset: number;
  rareOffset: number;
  commonOffset: number;
  phraseOffset: number;
  /** Where the knowledge share (vault-knowledge.ts) starts in each run of 100 notes. */
  knowledgeOffset: number;
}

function resolveOptions(options: SyntheticVaultOptions): Context {
  const notes = options.notes ?? DEFAULT_NOTES;
  const seedOpt = options.seed ?? DEFAULT_SEED;
  const averageBytes = options.averageBytes ?? DEFAULT_AVERAGE_BYTES;
  if (!Number.isSafeInteger(notes) || notes < 0) throw new RangeError(`notes must be a non-negative integer, got ${notes}`);
  if (!Number.isSafeInteger(seedOpt)) throw new RangeError(`seed must be an integer, got ${seedOpt}`);
  if (!Number.isFinite(averageBytes) || averageBytes <= 0) {
    throw new RangeError(`averageBytes must be a positive number, got ${averageBytes}`);
  }
  const seed = seedOpt >>> 0;
  const setup = new Rng(hash3(seed, 0, 0xabcdef));
  return {
    seed,
    notes,
    averageBytes,
    nameWidth: Math.max(5, String(Math.max(0, notes - 1)).length),
    sharedOffset: setup.int(SHARED_STRIDE),
    rareOffset: setup.int(1000),
    commonOffset: setup.int(1000),
    phraseOffset: setup.int(100),
    // Drawn last, so that the offsets above are what they were before knowledge material existed.
    knowledgeOffset: setup.int(100),
  };
}

const SALT_CONTENT = 1;
const SALT_HEADINGS = 2;
const SALT_FOLDER = 3;
const SALT_KNOWLEDGE = 4;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function folderOfTopic(topic: number): string {
  const area = Math.floor(topic / TOPICS_PER_AREA);
  return `area-${pad(area, 2)}/topic-${pad(topic, 3)}`;
}

/** File name (without `.md`) and folder of note `i`; unique as a pair for every i. */
function locate(ctx: Context, i: number): { name: string; folder: string } {
  const shifted = i + ctx.sharedOffset;
  if (shifted % SHARED_STRIDE === 0) {
    // Shared-name note: the k-th occurrence of a name goes to a distinct topic folder
    // (37 is coprime to TOPIC_COUNT), with a numeric suffix once all folders are used.
    const s = shifted / SHARED_STRIDE;
    const nameIndex = s % SHARED_NAMES.length;
    const occurrence = Math.floor(s / SHARED_NAMES.length);
    const topic = (occurrence * 37 + nameIndex * 11 + ctx.sharedOffset) % TOPIC_COUNT;
    const round = Math.floor(occurrence / TOPIC_COUNT);
    const base = SHARED_NAMES[nameIndex] as string;
    return { name: round === 0 ? base : `${base}-${round + 1}`, folder: folderOfTopic(topic) };
  }
  const h = hash3(ctx.seed, i, SALT_FOLDER);
  const area = h % AREA_COUNT;
  const topic = area * TOPICS_PER_AREA + ((h >>> 8) % TOPICS_PER_AREA);
  return { name: `note-${pad(i, ctx.nameWidth)}`, folder: folderOfTopic(topic) };
}

/** Headings (H2) that note `i` contains; lets `[[name#Heading]]` links point at real headings. */
function headingsOf(ctx: Context, i: number): string[] {
  const rng = new Rng(hash3(ctx.seed, i, SALT_HEADINGS));
  const count = rng.int(4);
  const out: string[] = [];
  let start = rng.int(HEADINGS.length);
  for (let k = 0; k < count; k++) {
    start = (start + 1 + rng.int(3)) % HEADINGS.length;
    const heading = HEADINGS[start] as string;
    if (!out.includes(heading)) out.push(heading);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Text generation

/** Zipf-like skewed pick from the content vocabulary (low indices are much more frequent). */
function contentWord(rng: Rng): string {
  const r = rng.float();
  return RANKED_WORDS[Math.floor(r * r * RANKED_WORDS.length)] as string;
}

function word(rng: Rng): string {
  return rng.float() < 0.32 ? rng.pick(FUNCTION_WORDS) : contentWord(rng);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function titleWords(rng: Rng, min: number, max: number): string {
  const n = rng.range(min, max);
  const parts: string[] = [];
  for (let k = 0; k < n; k++) parts.push(capitalize(contentWord(rng)));
  return parts.join(' ');
}

function date(rng: Rng, fromYear: number, years: number): string {
  return `${fromYear + rng.int(years)}-${pad(1 + rng.int(12), 2)}-${pad(1 + rng.int(28), 2)}`;
}

/** One sentence with the given inline items spliced in (never as the first word). */
function sentence(rng: Rng, items: readonly string[]): string {
  const n = rng.range(5, 16);
  const words: string[] = [];
  for (let k = 0; k < n; k++) words.push(word(rng));
  words[0] = capitalize(words[0] as string);
  if (n > 8 && rng.float() < 0.3) {
    const at = rng.range(3, n - 3);
    words[at] = `${words[at] as string},`;
  }
  for (const item of items) words.splice(1 + rng.int(words.length), 0, item);
  return words.join(' ') + (rng.float() < 0.08 ? '?' : '.');
}

function wikiLink(ctx: Context, rng: Rng, i: number): string {
  let j: number;
  if (rng.float() < 0.4) {
    // Local link: a nearby note index, which gives the graph some clustering.
    const delta = rng.range(1, Math.min(100, ctx.notes - 1));
    j = (i + (rng.float() < 0.5 ? delta : ctx.notes - delta)) % ctx.notes;
  } else {
    j = rng.int(ctx.notes - 1);
    if (j >= i) j++;
  }
  const { name } = locate(ctx, j);
  const style = rng.float();
  if (style < 0.15) return `[[${name}|${contentWord(rng)} ${contentWord(rng)}]]`;
  if (style < 0.27) {
    const headings = headingsOf(ctx, j);
    if (headings.length > 0) return `[[${name}#${rng.pick(headings)}]]`;
  }
  return `[[${name}]]`;
}

function generateNote(ctx: Context, i: number): SyntheticNote {
  const rng = new Rng(hash3(ctx.seed, i, SALT_CONTENT));
  const { name, folder } = locate(ctx, i);
  const target = Math.round(ctx.averageBytes * (0.5 + rng.float()));

  // Frontmatter and title.
  const head: string[] = ['---\n', `type: ${rng.pick(NOTE_TYPES)}\n`, 'tags:\n'];
  const tagCount = rng.range(1, 4);
  for (let k = 0; k < tagCount; k++) head.push(`  - ${rng.pick(TAGS)}\n`);
  head.push(`created: ${date(rng, 2019, 7)}\n`, `status: ${rng.pick(STATUSES)}\n`, `priority: ${rng.range(1, 5)}\n`);
  if (rng.float() < 0.15) {
    head.push('aliases:\n');
    const aliasCount = rng.range(1, 2);
    // Aliases have 2 words and missing-note links 3-4, so a missing link never resolves via an alias.
    for (let k = 0; k < aliasCount; k++) head.push(`  - ${titleWords(rng, 2, 2)}\n`);
  }
  head.push('---\n\n', `# ${titleWords(rng, 2, 5)}\n\n`);

  // Tasks block.
  const taskCount = rng.range(1, 4);
  let tasks = '';
  for (let k = 0; k < taskCount; k++) {
    const done = rng.float() < 0.35 ? 'x' : ' ';
    const due = rng.float() < 0.4 ? ` 📅 ${date(rng, 2024, 3)}` : '';
    tasks += `- [${done}] ${rng.pick(TASK_VERBS)} the ${contentWord(rng)} ${contentWord(rng)}${due}\n`;
  }
  tasks += '\n';

  // Inline items: WikiLinks, links to missing notes, #tags and the special terms.
  const items: string[] = [];
  if (ctx.notes > 1) {
    const linkCount = rng.range(2, 8);
    for (let k = 0; k < linkCount; k++) items.push(wikiLink(ctx, rng, i));
  }
  const missingCount = rng.range(1, 2);
  for (let k = 0; k < missingCount; k++) items.push(`[[${titleWords(rng, 3, 4)}]]`);
  const inlineTagCount = rng.range(1, 3);
  for (let k = 0; k < inlineTagCount; k++) items.push(`#${rng.pick(TAGS)}`);
  const cycle = i % 1000;
  if ((cycle * 7919 + ctx.rareOffset) % 1000 === 0) items.push(SYNTHETIC_RARE_TERM);
  if ((cycle * 3571 + ctx.commonOffset) % 1000 < 750) {
    const commonCount = rng.range(1, 3);
    for (let k = 0; k < commonCount; k++) items.push(SYNTHETIC_COMMON_TERM);
  }
  if (((i % 100) * 37 + ctx.phraseOffset) % 100 === 0) items.push(SYNTHETIC_PHRASE);

  // Size budget for the body (prose with inline items, headings and the task list).
  const headings = headingsOf(ctx, i);
  let headLength = 0;
  for (const part of head) headLength += part.length;
  // Half a sentence is reserved because the last paragraph overshoots the budget by about that much.
  const budget = target - headLength - AVG_SENTENCE_CHARS / 2;

  // Assign every inline item to a sentence slot; items whose slot is never reached are flushed at the end.
  let itemChars = tasks.length;
  for (const item of items) itemChars += item.length + 1;
  const expectedSentences = Math.max(1, Math.round((budget - itemChars) / AVG_SENTENCE_CHARS));
  const slots: string[][] = [];
  for (const item of items) {
    const slot = rng.int(expectedSentences);
    (slots[slot] ??= []).push(item);
  }
  const none: readonly string[] = [];

  // Blocks (H2 headings and the task list) are placed when the body passes a fraction of the budget.
  const blocks: { at: number; text: string }[] = headings.map((heading, k) => ({
    at: (budget * (k + 1)) / (headings.length + 2),
    text: `## ${heading}\n\n`,
  }));
  blocks.push({ at: budget * (0.3 + 0.6 * rng.float()), text: tasks });
  blocks.sort((a, b) => a.at - b.at);

  const body: string[] = [];
  let length = 0;
  let sentenceIndex = 0;
  let nextBlock = 0;
  do {
    while (nextBlock < blocks.length && (blocks[nextBlock] as { at: number }).at <= length) {
      const text = (blocks[nextBlock] as { text: string }).text;
      body.push(text);
      length += text.length;
      nextBlock++;
    }
    const sentences = rng.range(2, 6);
    let paragraph = '';
    for (let k = 0; k < sentences; k++) {
      if (k > 0 && length + paragraph.length >= budget) break;
      const s = sentence(rng, slots[sentenceIndex] ?? none);
      slots[sentenceIndex] = [];
      sentenceIndex++;
      paragraph += paragraph.length === 0 ? s : ` ${s}`;
    }
    paragraph += '\n\n';
    body.push(paragraph);
    length += paragraph.length;
  } while (length < budget);

  const leftovers: string[] = [];
  for (const slot of slots) if (slot) leftovers.push(...slot);
  if (leftovers.length > 0) body.push(`Related: ${leftovers.join(' ')}.\n\n`);
  for (; nextBlock < blocks.length; nextBlock++) body.push((blocks[nextBlock] as { text: string }).text);

  const content = (head.join('') + body.join('')).replace(/\n+$/, '\n');
  const share = knowledgeShareOf(i, ctx.knowledgeOffset);
  return { path: `${folder}/${name}.md`, content: share === null ? content : addKnowledgeMaterial(content, i, share, knowledgeDraws(ctx, i)) };
}

/** Note `i`'s own stream of knowledge draws: separate from its content stream, which therefore stays as it was. */
function knowledgeDraws(ctx: Context, i: number): KnowledgeDraws {
  const rng = new Rng(hash3(ctx.seed, i, SALT_KNOWLEDGE));
  return {
    float: () => rng.float(),
    int: (n) => rng.int(n),
    pick: (items) => rng.pick(items),
    words: (min, max) => titleWords(rng, min, max),
    date: (fromYear, years) => date(rng, fromYear, years),
    nameOf: (index) => locate(ctx, index).name,
  };
}

// ---------------------------------------------------------------------------
// Public API

/**
 * Lazily yields `notes` synthetic Markdown notes in index order. Output is a pure
 * function of the options: same options, byte-identical notes. Paths are unique,
 * vault-relative, use forward slashes and end in `.md`; about 5% of notes share a
 * file name (e.g. `roadmap.md`) with notes in other folders.
 */
export function* generateSyntheticVault(options: SyntheticVaultOptions = {}): Generator<SyntheticNote> {
  const ctx = resolveOptions(options);
  for (let i = 0; i < ctx.notes; i++) yield generateNote(ctx, i);
}

/**
 * Writes the synthetic vault under `dir` (created if needed), in batches of 64
 * concurrent writes. Returns the number of notes and the total UTF-8 bytes written.
 */
export async function writeSyntheticVault(
  dir: string,
  options: SyntheticVaultOptions = {},
): Promise<{ notes: number; bytes: number }> {
  const BATCH = 64;
  const created = new Set<string>();
  let notes = 0;
  let bytes = 0;
  let batch: SyntheticNote[] = [];

  const flush = async (): Promise<void> => {
    const folders = new Set<string>();
    for (const note of batch) {
      const folder = note.path.slice(0, note.path.lastIndexOf('/'));
      if (!created.has(folder)) folders.add(folder);
    }
    await Promise.all([...folders].map((folder) => mkdir(join(dir, folder), { recursive: true })));
    for (const folder of folders) created.add(folder);
    await Promise.all(batch.map((note) => writeFile(join(dir, note.path), note.content, 'utf8')));
    batch = [];
  };

  await mkdir(dir, { recursive: true });
  for (const note of generateSyntheticVault(options)) {
    batch.push(note);
    notes++;
    bytes += Buffer.byteLength(note.content, 'utf8');
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  return { notes, bytes };
}

// ---------------------------------------------------------------------------
// CLI

function parseIntFlag(flag: string, value: string | undefined): number {
  const n = value === undefined ? Number.NaN : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${flag} expects an integer, got ${String(value)}`);
  return n;
}

async function main(argv: readonly string[]): Promise<void> {
  let outDir: string | undefined;
  const options: SyntheticVaultOptions = {};
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k] as string;
    if (arg === '--notes') options.notes = parseIntFlag(arg, argv[++k]);
    else if (arg === '--seed') options.seed = parseIntFlag(arg, argv[++k]);
    else if (arg === '--average-bytes') options.averageBytes = parseIntFlag(arg, argv[++k]);
    else if (arg.startsWith('--')) throw new Error(`unknown flag ${arg}`);
    else if (outDir === undefined) outDir = arg;
    else throw new Error(`unexpected argument ${arg}`);
  }
  if (outDir === undefined) {
    throw new Error('usage: npx tsx bench/vault-generator.ts OUT_DIR [--notes N] [--seed S] [--average-bytes B]');
  }
  const started = performance.now();
  const result = await writeSyntheticVault(outDir, options);
  const ms = Math.round(performance.now() - started);
  console.log(
    JSON.stringify({
      dir: outDir,
      notes: result.notes,
      bytes: result.bytes,
      seed: options.seed ?? DEFAULT_SEED,
      averageBytes: options.averageBytes ?? DEFAULT_AVERAGE_BYTES,
      ms,
    }),
  );
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
