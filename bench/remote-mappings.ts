/**
 * Remote mappings: what a Google Drive, Dropbox or GitHub vault of 2,000 notes costs kgate, against each provider's
 * local fake (test/fakes/), on embedded PGlite and on server PostgreSQL, each beside its baseline measured the same
 * way in the same run:
 * - the first sync of the whole vault (notes per second), beside importing the same notes into a hosted vault with
 *   `kgate import`'s own code (importFolder: importNotes in batches of 250): the difference is what the provider's
 *   round trips and the sync's bookkeeping (remote_files rows, cursors, leases, a transaction per page) cost beyond
 *   writing the notes;
 * - an incremental sync after another device changed 20 notes at the provider;
 * - `get_note_content` over MCP through a real gateway: a remote note (a live read at the provider, through the fake)
 *   beside a hosted note of the same content (the baseline).
 *
 * Everything goes through the domain as the tests do: the fakes' stores are seeded directly, each provider is
 * connected through the connections service's OAuth (state, PKCE, code exchange, sealed tokens), the mapping is made
 * with services.remoteMappings.create, and the sync is `services.sync.syncNow(id, { maxSteps: 1000 })` until it
 * caught up. The syncs run before the gateway starts, and the sync interval is a day, so that the gateway's
 * maintenance loop never steps a mapping while something is measured.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startGateway } from '../src/app/gateway.ts';
import { providerWiring } from '../src/app/providers.ts';
import { createServices, type Services } from '../src/app/services.ts';
import { importFolder } from '../src/cli/import-folder.ts';
import { loadConfig } from '../src/config.ts';
import type { RemoteKind } from '../src/domains/providers/port.ts';
import { createLogger } from '../src/logger.ts';
import { connectProvider } from './remote/connect.ts';
import { BENCH_BASE_URL, REMOTE_KINDS, providerEnv, startSeededFake, type SeededFake } from './remote/fake-providers.ts';
import { measureReads, type ReadFigures, type ReadSubject } from './remote/read-latency.ts';
import type { KgateEngine } from './search/kgate-engine.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { onBothEngines } from './support/both-engines.ts';
import { count, fixed } from './support/format.ts';
import { median } from './support/stats.ts';
import { generateSyntheticVault, writeSyntheticVault, type SyntheticNote } from './vault-generator.ts';

/** Notes of the remote vault (issue 17 asks for 2,000), whatever `--notes` says: it sizes the other benchmarks. */
const REMOTE_NOTES = 2_000;
/** Notes another device changes before the incremental sync. */
const EDITS = 20;
/** Steps one sync may take (each bounded by PROVIDER_BUDGETS.syncStep); far more than 2,000 notes need. */
const MAX_STEPS = 1_000;
/** Rounds of reads not kept, then kept (each round reads every subject once). */
const READ_WARMUP = 20;
const READ_ROUNDS = 300;

const NAMES: Record<RemoteKind, string> = { drive: 'Google Drive', dropbox: 'Dropbox', github: 'GitHub' };

/** One timed sync or import. */
interface Timed {
  seconds: number;
  /** Requests the provider's fake received during it (0 for the import). */
  requests: number;
}

/** What one engine measured. */
interface EngineFigures {
  imports: Timed[];
  full: Record<RemoteKind, Timed[]>;
  incremental: Record<RemoteKind, Timed>;
  reads: ReadFigures[];
  readPath: string;
}

/** A remote mapping the benchmark made, with the fake behind it. */
interface Made {
  fake: SeededFake;
  mappingId: string;
  vaultId: string;
}

/** The note read in the latency rows: the one closest to 2 KiB (every note of the vault exists on every side). */
function readNoteOf(notes: readonly SyntheticNote[]): SyntheticNote {
  const size = (n: SyntheticNote) => Math.abs(Buffer.byteLength(n.content, 'utf8') - 2048);
  return notes.reduce((best, n) => (size(n) < size(best) ? n : best));
}

/** Runs `work` and answers its wall time in seconds. */
async function seconds(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** Syncs a mapping from where it stands until it caught up; throws when it ends otherwise. */
async function syncToEnd(services: Services, made: Made): Promise<Timed> {
  const before = made.fake.requests();
  let outcome: Awaited<ReturnType<Services['sync']['syncNow']>>;
  const took = await seconds(async () => {
    outcome = await services.sync.syncNow(made.mappingId, { maxSteps: MAX_STEPS });
  });
  if (!outcome?.caughtUp) throw new Error(`${made.fake.kind}: the sync ended ${outcome?.status ?? 'without a step'}${outcome?.error ? ` (${outcome.error.code}: ${outcome.error.message})` : ''}`);
  return { seconds: took, requests: made.fake.requests() - before };
}

async function measureEngine(engine: KgateEngine, notes: readonly SyntheticNote[], vaultDir: string, repeat: number): Promise<EngineFigures> {
  // Fresh fakes for each engine, so that both engines sync exactly the same provider state.
  const fakes = await Promise.all(REMOTE_KINDS.map((kind) => startSeededFake(kind, notes)));
  try {
    const config = loadConfig({ ...providerEnv(fakes), PORT: '0', KGATE_LOG_LEVEL: 'info' });
    const services = createServices(engine.db, undefined, { publicBase: () => BENCH_BASE_URL, providers: providerWiring(config.providers) });
    const accountId = engine.actor.accountId;
    const { workspaceId } = await services.vaults.findMappingAsOperator(engine.mappingId);
    const connections = new Map<RemoteKind, string>();
    for (const fake of fakes) connections.set(fake.kind, (await connectProvider(services, accountId, fake.kind)).id);

    const figures: EngineFigures = {
      imports: [],
      full: { drive: [], dropbox: [], github: [] },
      incremental: {} as EngineFigures['incremental'],
      reads: [],
      readPath: readNoteOf(notes).path,
    };
    const latest = new Map<RemoteKind, Made>();
    // Each repetition measures the baseline and every provider in turn, so that the machine's drift falls on all.
    for (let r = 0; r < repeat; r += 1) {
      process.stderr.write(`remote mappings: ${engine.name}, repetition ${r + 1} of ${repeat}\n`);
      const hosted = await services.vaults.createHostedVault({ accountId, plan: 'developer', workspaceId, name: `Import ${r + 1}` });
      let created = 0;
      const took = await seconds(async () => {
        created = (await importFolder(services.notes, engine.actor, hosted.id, vaultDir)).created;
      });
      if (created !== notes.length) throw new Error(`the baseline import created ${count(created)} notes, expected ${count(notes.length)}`);
      figures.imports.push({ seconds: took, requests: 0 });
      for (const fake of fakes) {
        const mapping = await services.remoteMappings.create(accountId, { workspaceId, connectionId: connections.get(fake.kind)!, name: `${NAMES[fake.kind]} ${r + 1}`, root: fake.root });
        const made: Made = { fake, mappingId: mapping.id, vaultId: mapping.vaultId };
        figures.full[fake.kind].push(await syncToEnd(services, made));
        const synced = (await services.sync.report(mapping.id))?.notesSynced;
        if (synced !== notes.length) throw new Error(`${fake.kind}: ${String(synced)} notes synced, expected ${count(notes.length)}`);
        latest.set(fake.kind, made);
      }
    }

    // Another device changes 20 notes spread over the vault; the last mapping of each provider follows.
    const edited = Array.from({ length: EDITS }, (_, k) => notes[(k * 97 + 13) % notes.length]!);
    for (const fake of fakes) {
      const made = latest.get(fake.kind)!;
      const changed = new Map(edited.map((note, k) => [note.path, `${note.content}\n- [ ] Follow-up ${k} from another device (${engine.name})\n`]));
      for (const [path, content] of changed) fake.edit(path, content);
      figures.incremental[fake.kind] = await syncToEnd(services, made);
      const rows = await engine.db.query<{ path: string; content: string }>('SELECT path, content FROM notes WHERE vault_id = $1 AND path = ANY($2::text[])', [made.vaultId, [...changed.keys()]]);
      const stale = [...changed].filter(([path, content]) => rows.find((row) => row.path === path)?.content !== content);
      if (stale.length > 0) throw new Error(`${fake.kind}: ${stale.length} of ${EDITS} edited notes differ in the copy after the incremental sync`);
    }

    // Reads through the real gateway, started now over the same database with the same settings.
    const { token } = await services.tokens.issueToken({ accountId, name: 'bench remote reads' });
    const plenty = 1_000_000_000;
    await services.accounts.setAllowanceOverrides(accountId, { mcpOperationsPerMinute: plenty, mcpOperationsPerMonth: plenty });
    // Log at info into a sink that drops lines, so that each request's log line is built as in `kgate serve`.
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    const gateway = await startGateway(config, { db: engine.db, fresh: false, close: () => Promise.resolve() }, { logger: createLogger('info', sink) });
    try {
      const subjects: ReadSubject[] = [
        { label: 'hosted', mappingId: engine.mappingId, path: figures.readPath },
        ...fakes.map((fake) => ({ label: fake.kind, mappingId: latest.get(fake.kind)!.mappingId, path: figures.readPath, providerRequests: () => fake.requests() })),
      ];
      figures.reads = await measureReads(gateway.url, token, subjects, { warmup: READ_WARMUP, rounds: READ_ROUNDS });
      const hashes = new Set(figures.reads.map((r) => r.contentHash));
      if (hashes.size !== 1) throw new Error(`the same note answered ${hashes.size} different contentHash values`);
    } finally {
      await gateway.stop();
    }
    return figures;
  } finally {
    await Promise.all(fakes.map((fake) => fake.close()));
  }
}

const ms = (value: number): string => `${fixed(value, 2)} ms`;

/** Seconds as the median of the runs, their range, notes per second of the median, and requests of the median run. */
function cells(runs: readonly Timed[], notes: number): string {
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  const mid = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const range = sorted.length > 1 ? `${fixed(sorted[0]!.seconds, 2)}–${fixed(sorted.at(-1)!.seconds, 2)}` : '–';
  return `${fixed(mid.seconds, 2)} | ${range} | ${count(Math.round(notes / mid.seconds))} | ${mid.requests === 0 ? '–' : count(mid.requests)}`;
}

/** What the figures say, printed under them. */
const READING =
  'Reading: a first sync writes each note as the import does (the same rows, links, Markdown model, knowledge and one ' +
  'provenance event per note), so what it costs beyond the baseline is the provider side: listing, one read per note, ' +
  "a remote_files row per file, and a transaction per listing page under the mapping's lease. Dropbox and GitHub need " +
  "about one request per note (a download; a blob). Drive needs about five: the adapter's read resolves the path folder " +
  'by folder (three requests for a note two folders deep), downloads, then reads the version again; reading by the file ' +
  'id the listing already gave would save the path lookups. An incremental sync downloads only the changed notes: ' +
  'Dropbox and GitHub place the changes from their cursor (a continue page; a compare of two commits), while Drive ' +
  'answers a change that may touch a listed file with a relist, so every folder is listed again before the downloads. ' +
  'A remote get_note_content is a live read at the provider (the requests per read are in the table) on top of the ' +
  "hosted read's work; against a real provider each of those requests adds a network round trip, tens of " +
  'milliseconds, that the local fakes do not.';

async function run(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const notes = [...generateSyntheticVault({ notes: REMOTE_NOTES, seed: options.seed })];
  const bytes = notes.reduce((sum, note) => sum + Buffer.byteLength(note.content, 'utf8'), 0);
  const folders = new Set(notes.map((note) => note.path.slice(0, note.path.lastIndexOf('/')))).size;
  const scratch = await mkdtemp(join(tmpdir(), 'kgate-bench-remote-'));
  let measured;
  try {
    const vaultDir = join(scratch, 'vault');
    await writeSyntheticVault(vaultDir, { notes: REMOTE_NOTES, seed: options.seed });
    measured = await onBothEngines('remote mappings', { ...options, notes: REMOTE_NOTES }, (engine, report) => {
      report.details.push(`- ${engine.name} ${engine.version}.`);
      return measureEngine(engine, notes, vaultDir, options.repeat);
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const { results, details, failures } = measured;
  const engines = results.map((r) => r.engine);
  const header = (first: string, columns: string[]) => [
    `| ${first} | ${engines.map((engine) => columns.map((c) => `${engine} ${c}`).join(' | ')).join(' | ')} |`,
    `|---|${engines.map(() => columns.map(() => '---:').join('|')).join('|')}|`,
  ];
  const row = (label: string, cell: (figures: EngineFigures) => string) => `| ${label} | ${results.map((r) => cell(r.value)).join(' | ')} |`;
  const syncTable = [
    ...header(`Run (${count(REMOTE_NOTES)} notes)`, ['seconds', 'range', 'notes/s', 'provider requests']),
    row('Baseline: `kgate import` of the notes into a hosted vault', (f) => cells(f.imports, REMOTE_NOTES)),
    ...REMOTE_KINDS.map((kind) => row(`First sync from ${NAMES[kind]} (fake)`, (f) => cells(f.full[kind], REMOTE_NOTES))),
    ...REMOTE_KINDS.map((kind) => row(`Incremental sync from ${NAMES[kind]} after ${EDITS} edits`, (f) => cells([f.incremental[kind]], EDITS))),
  ];
  const readPath = results[0]?.value.readPath ?? '';
  const readBytes = Buffer.byteLength(notes.find((n) => n.path === readPath)?.content ?? '', 'utf8');
  const readTable = [
    ...header(`get_note_content over MCP (a note of ${count(readBytes)} bytes)`, ['p50', 'p95', 'provider requests per read']),
    ...['hosted', ...REMOTE_KINDS].map((label) =>
      row(label === 'hosted' ? 'Hosted note (baseline)' : `Remote note, ${NAMES[label as RemoteKind]} (live read through the fake)`, (f) => {
        const read = f.reads.find((r) => r.label === label);
        if (!read) return '– | – | –';
        return `${ms(read.p50)} | ${ms(read.p95)} | ${read.requestsPerRead === undefined ? '–' : fixed(read.requestsPerRead, 1)}`;
      }),
    ),
  ];
  const ratios = results.map((r) => {
    const base = median(r.value.imports.map((t) => t.seconds));
    const each = REMOTE_KINDS.map((kind) => `${NAMES[kind]} ${fixed(median(r.value.full[kind].map((t) => t.seconds)) / base, 1)}×`);
    const hostedP50 = r.value.reads.find((x) => x.label === 'hosted')?.p50 ?? Number.NaN;
    const reads = REMOTE_KINDS.map((kind) => `${NAMES[kind]} +${ms((r.value.reads.find((x) => x.label === kind)?.p50 ?? Number.NaN) - hostedP50)}`);
    return `- ${r.engine}: a first sync took ${each.join(', ')} the baseline import's time; a remote read's p50 was the hosted one's plus ${reads.join(', ')}.`;
  });
  const table = [...syncTable, '', ...readTable];
  const setup = [
    `Vault: ${count(REMOTE_NOTES)} synthetic notes (seed ${options.seed}, ${fixed(bytes / 1e6, 1)} MB, ${count(folders)} folders two levels deep, ` +
      'frontmatter on every note, WikiLinks and tasks) from `bench/vault-generator.ts`, seeded straight into each fake\'s store below the mapped ' +
      'folder (Drive `Notes`, Dropbox `/Notes`, GitHub `octo-owner/notes@main:vault` in one commit), and written to a folder for the baseline import.',
    `Each provider is connected through the connections service (its OAuth with PKCE against the fake), each mapping made with services.remoteMappings.create; ` +
      `a sync is services.sync.syncNow(id, { maxSteps: ${count(MAX_STEPS)} }) until it caught up, its notes counted in the sync report. Seconds are the median ` +
      `of ${options.repeat} repetition${options.repeat === 1 ? '' : 's'} (a new hosted vault and a new mapping of the same folder each time; baseline and providers take turns within a ` +
      `repetition); "provider requests" counts what the fake received during the median run. The incremental row is one run: another device rewrites ` +
      `${EDITS} notes (Drive and Dropbox: one change each; GitHub: one commit each), then the last mapping syncs and the ${EDITS} copies are checked.`,
    `Reads: a real gateway started in the process over the same database, \`POST /api/mcp\` \`tools/call\` of get_note_content with a personal access ` +
      `token, ${READ_ROUNDS} rounds after ${READ_WARMUP} warm-up rounds, each round reading the hosted note and the same note of each remote mapping once in a ` +
      'rotating order. The answers carry one contentHash for the four (same content); a remote answer\'s revision is the provider\'s.',
    'The fakes are HTTP servers on 127.0.0.1 in the benchmark\'s own process: their work (listing, JSON, serving bodies) is counted in the sync ' +
      'and read times, and no network latency is. The machine is shared with other sessions running tests, so absolute figures move ' +
      "(the speed check above says how loaded it was: compare it with other sections'); compare rows of one run.",
  ];
  details.unshift(...setup, '', ...ratios, '', READING, '');
  return { table, details, failures };
}

/** See the module comment. */
export const remoteMappingsBenchmark: Benchmark = { title: 'Remote mappings', run };
