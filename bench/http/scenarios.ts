/**
 * The requests the HTTP benchmark sends, each with a cheap check of every response body (autocannon counts a
 * failed check as a mismatch, which fails the benchmark): a 200 is not enough, the answer must be the right one.
 *
 * - hello-world: `GET /healthz`, no I/O, through the same middleware (request id, log line) as every route.
 * - read: `GET /api/dev/notes/{category}/{filename}?mappingId=...`, one note of the demo vault, as JSON.
 * - read, many accounts: the same request, but each connection speaks for an account of its own (own token, own
 *   demo vault), so that requests do not share an account's usage counters.
 * - search: `GET /api/dev/search?mappingId=...&query=offline sync`, ranked hits with snippets over the demo vault.
 * - MCP `tools/list` and MCP `tools/call` of `get_note_content` (the read's note), on `POST /api/mcp`. `tools/list`
 *   is measured twice: with `Accept-Encoding: gzip, deflate`, as MCP clients send it (the TypeScript SDK through
 *   Node's fetch, the Python SDK through httpx), and without it, as autocannon sends by default.
 * - preview: `POST /api/dev/transactions` with dryRun true: 10 write-note actions that update 10 existing notes
 *   (about 2 KB each) with their current hashes, so every request validates, looks up 10 hashes and diffs 10 notes.
 * - apply: the same route with dryRun false: 10 new notes under a folder of their own per request, and a unique
 *   Idempotency-Key per request (new notes need no expectedHash).
 */
import type autocannon from 'autocannon';
import { mcpHeaders, toolsCallBody, TOOLS_LIST_BODY, verifyNoteContent, verifyToolsList } from '../mcp/requests.ts';
import { generateSyntheticVault } from '../vault-generator.ts';

/** The Accept-Encoding Node's fetch sends on plain HTTP, and so the MCP TypeScript SDK's client; httpx sends it too. */
export const CLIENT_ACCEPT_ENCODING = 'gzip, deflate';

/** A gzip body as autocannon hands it over, decoded as UTF-8: the magic bytes 1f 8b (invalid UTF-8) and method 8. */
function isGzipText(body: string): boolean {
  return body.startsWith('\x1f\ufffd\b');
}

/** The notes a benchmark run writes before measuring, to preview updates of. */
export interface SeedNote {
  path: string;
  content: string;
}

/** One measured request kind. */
export interface Scenario {
  key: 'hello' | 'read' | 'readMany' | 'search' | 'searchVaried' | 'toolsList' | 'toolsListIdentity' | 'noteContent' | 'preview' | 'apply';
  /** How the table names it. */
  label: string;
  /** The request: one fixed request (method, path, headers, body), or autocannon `requests` built per request. */
  options: {
    method?: autocannon.Request['method'];
    path: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: autocannon.Request[];
    /** Per connection: changes the request this connection repeats. */
    setupClient?: (client: autocannon.Client) => void;
  };
  /** True when a response body is the expected answer. */
  verify(body: string): boolean;
  /**
   * The check of a body that fetch has decoded, where it differs from {@link verify}: a gzip body reaches autocannon
   * undecoded (and decoded as UTF-8, which mangles it), so under load only its gzip header can be checked, while the
   * one-client round trips (`round-trips.ts`) receive it decoded by fetch and check all of it.
   */
  verifyDecoded?(body: string): boolean;
  /** Applied writes: how many distinct requests have been built so far (sent, or about to be). */
  built?: () => number;
}

/** The note every read scenario request reads (from examples/vault, seeded by `kgate admin bootstrap`). */
export const READ_NOTE_PATH = 'Projects/Offline Sync.md';

/** The words the search row looks for: READ_NOTE_PATH ranks first for them. */
export const SEARCH_QUERY = 'offline sync';

/** Frequent words of the demo vault: the varied search row asks for pairs of them. */
const SEARCH_WORDS = (
  'tidewater pilot harbor priya offline project sqlite roadmap jonas device couchdb customer field questions decision ' +
  'utilities status meeting scope replication product owner write notes change review order conflict technicians planning ' +
  'server mobile budget photos storage service'
).split(' ');

/**
 * The n-th query of the varied search row: a pair of SEARCH_WORDS and a limit from 1 to 20, in an order that repeats
 * no (query, limit) before 23,800 requests, so that every answer is computed, none served from the page cache.
 */
export function variedSearch(n: number): { query: string; limit: number } {
  const words = SEARCH_WORDS.length;
  const pair = n % (words * (words - 1));
  const first = Math.floor(pair / (words - 1));
  const second = (first + 1 + (pair % (words - 1))) % words;
  return { query: `${SEARCH_WORDS[first]} ${SEARCH_WORDS[second]}`, limit: 1 + (Math.floor(n / (words * (words - 1))) % 20) };
}

/** Actions per transaction. */
export const TRANSACTION_ACTIONS = 10;

const SEED_FOLDER = 'Bench';

/** The contents of the first `count` synthetic notes (bench/vault-generator.ts, seed 42): about 2 KB each. */
export function syntheticContents(count: number): string[] {
  return [...generateSyntheticVault({ notes: count, seed: 42 })].map((note) => note.content);
}

/** The notes previews update: the first TRANSACTION_ACTIONS synthetic notes, at `Bench/seed-NN.md`. */
export function seedNotes(): SeedNote[] {
  return syntheticContents(TRANSACTION_ACTIONS).map((content, k) => ({
    path: `${SEED_FOLDER}/seed-${String(k).padStart(2, '0')}.md`,
    content,
  }));
}

/** An edit of a note: one line changed in the middle and a paragraph appended, so the diff has two hunks. */
export function edited(content: string): string {
  const lines = content.split('\n');
  const middle = Math.floor(lines.length / 2);
  lines[middle] = `${lines[middle] ?? ''} (edited by the benchmark)`;
  return `${lines.join('\n')}\n## Benchmark edit\n\nA paragraph the preview adds at the end of the note.\n`;
}

/** How many times `needle` occurs in `text` (non-overlapping). */
export function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** The folder prefix of applied writes: `bench-<runId>-<n>/note-NN.md`. */
export const APPLY_FOLDER_PREFIX = 'bench-';

/** An account the many-accounts read speaks for. */
export interface ReaderAccount {
  token: string;
  mappingId: string;
}

/** Everything a scenario needs to know about the installation. */
export interface Target {
  token: string;
  mappingId: string;
  /** Accounts with the demo vault, one per connection of the many-accounts read (the first is the owner). */
  readers: ReaderAccount[];
  /** The seed notes with their current content hashes. */
  seeds: Array<SeedNote & { hash: string }>;
  /** Unique per run, so that folders and idempotency keys of applied writes never repeat. */
  runId: string;
}

/** The scenarios, in the order they run. */
export function scenarios(target: Target): Scenario[] {
  const auth = { authorization: `Bearer ${target.token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const [category, filename] = READ_NOTE_PATH.split('/') as [string, string];
  const readPathOf = (mappingId: string) => `/api/dev/notes/${encodeURIComponent(category)}/${encodeURIComponent(filename)}?mappingId=${mappingId}`;
  const readPath = readPathOf(target.mappingId);
  const verifyRead = (body: string) => body.includes(`"path":${JSON.stringify(READ_NOTE_PATH)}`) && body.includes('"contentHash":"sha256:');
  let connection = 0;
  let searched = 0;

  const preview = JSON.stringify({
    mappingId: target.mappingId,
    dryRun: true,
    actions: target.seeds.map((seed) => ({
      type: 'write-note',
      path: seed.path,
      content: edited(seed.content),
      expectedHash: seed.hash,
    })),
  });

  return [
    {
      key: 'hello',
      label: 'GET /healthz (hello-world)',
      options: { method: 'GET', path: '/healthz' },
      verify: (body) => body.startsWith('{"status":"ok"'),
    },
    {
      key: 'read',
      label: 'GET /api/dev/notes/{category}/{filename} (read a note)',
      options: { method: 'GET', path: readPath, headers: auth },
      verify: verifyRead,
    },
    {
      key: 'readMany',
      label: `GET /api/dev/notes/{category}/{filename} (read a note, ${target.readers.length} accounts)`,
      options: {
        method: 'GET',
        path: readPath,
        headers: auth,
        setupClient(client) {
          const reader = target.readers[connection++ % target.readers.length]!;
          client.setRequest({ method: 'GET', path: readPathOf(reader.mappingId), headers: { authorization: `Bearer ${reader.token}` } });
        },
      },
      verify: verifyRead,
    },
    {
      key: 'search',
      label: `GET /api/dev/search (${SEARCH_QUERY})`,
      options: { method: 'GET', path: `/api/dev/search?mappingId=${target.mappingId}&query=${encodeURIComponent(SEARCH_QUERY)}`, headers: auth },
      verify: (body) => body.startsWith('{"results":[{') && body.includes(`"path":${JSON.stringify(READ_NOTE_PATH)}`) && body.includes('"snippet":'),
    },
    {
      key: 'toolsList',
      label: 'POST /api/mcp tools/list, Accept-Encoding: gzip, deflate',
      options: { method: 'POST', path: '/api/mcp', headers: { ...mcpHeaders(target.token), 'accept-encoding': CLIENT_ACCEPT_ENCODING }, body: TOOLS_LIST_BODY },
      verify: isGzipText,
      verifyDecoded: verifyToolsList,
    },
    {
      key: 'toolsListIdentity',
      label: 'POST /api/mcp tools/list, no Accept-Encoding',
      options: { method: 'POST', path: '/api/mcp', headers: mcpHeaders(target.token), body: TOOLS_LIST_BODY },
      verify: verifyToolsList,
    },
    {
      key: 'noteContent',
      label: 'POST /api/mcp tools/call get_note_content',
      options: {
        method: 'POST',
        path: '/api/mcp',
        headers: mcpHeaders(target.token),
        body: toolsCallBody('get_note_content', { mappingId: target.mappingId, path: READ_NOTE_PATH }),
      },
      verify: verifyNoteContent,
    },
    // Last of the read rows: search rows leave garbage that the server is still collecting when the next row
    // starts. On PGlite on 2026-11-25, hello-world measured right after the two search rows ran at 32,140 and 38,157
    // requests/s against about 44,000 elsewhere in the run, and the row after them paid the same way. A new query
    // each time leaves the most (a new page in the search cache per request), so it runs after the other reads.
    {
      key: 'searchVaried',
      label: 'GET /api/dev/search (a new query each time)',
      options: {
        path: '/api/dev/search',
        requests: [
          {
            method: 'GET',
            setupRequest(request) {
              const { query, limit } = variedSearch(searched++);
              return { ...request, path: `/api/dev/search?mappingId=${target.mappingId}&query=${encodeURIComponent(query)}&limit=${limit}`, headers: auth };
            },
          },
        ],
      },
      verify: (body) => body.startsWith('{"results":['),
    },
    {
      key: 'preview',
      label: `POST /api/dev/transactions, ${TRANSACTION_ACTIONS} updates, dryRun true (preview)`,
      options: { method: 'POST', path: '/api/dev/transactions', headers: json, body: preview },
      verify: (body) =>
        body.includes('"applied":false') &&
        occurrences(body, '"status":"update"') === TRANSACTION_ACTIONS &&
        occurrences(body, '"diff":"') === TRANSACTION_ACTIONS &&
        !body.includes('"problem"'),
    },
    applyScenario(target, TRANSACTION_ACTIONS),
  ];
}

/**
 * Applied writes of `notes` new notes per request (`POST /api/dev/transactions`, dryRun false): each request writes
 * under a folder of its own (`bench-<runId>-<tag><n>/note-NN.md`) with a unique Idempotency-Key, so new notes need no
 * expectedHash. The body is assembled from pre-serialized actions, with the request's folder filled in. `tag` keeps
 * the folders and keys of two such scenarios on one vault apart.
 */
export function applyScenario(target: Target, notes: number, tag = ''): Scenario {
  const json = { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' };
  const FOLDER = '@@FOLDER@@';
  const contents = syntheticContents(TRANSACTION_ACTIONS + notes).slice(TRANSACTION_ACTIONS);
  const actionsJson = contents
    .map((content, k) => JSON.stringify({ type: 'write-note', path: `${FOLDER}/note-${String(k).padStart(2, '0')}.md`, content }))
    .join(',');
  const applyHead = `{"mappingId":${JSON.stringify(target.mappingId)},"dryRun":false,"actions":[`;
  let applied = 0;
  return {
    key: 'apply',
    label: `POST /api/dev/transactions, ${notes} new note${notes === 1 ? '' : 's'}, dryRun false (applied)`,
    options: {
      path: '/api/dev/transactions',
      requests: [
        {
          method: 'POST',
          path: '/api/dev/transactions',
          setupRequest(request) {
            const id = `${APPLY_FOLDER_PREFIX}${target.runId}-${tag}${++applied}`;
            return {
              ...request,
              headers: { ...json, 'idempotency-key': id },
              body: `${applyHead}${actionsJson.replaceAll(FOLDER, id)}]}`,
            };
          },
        },
      ],
    },
    verify: (body) => body.includes('"applied":true') && occurrences(body, '"status":"create"') === notes,
    built: () => applied,
  };
}
