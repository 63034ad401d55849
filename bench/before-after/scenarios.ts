/**
 * The requests the before-and-after benchmark sends, the same to both sides, each with a check of every response
 * body. The REST read, preview and hello-world are the HTTP throughput benchmark's (`../http/scenarios.ts`), the MCP
 * request helpers the MCP throughput benchmark's (`../mcp/requests.ts`).
 */
import type { LoadScenario } from '../http/load.ts';
import { applyScenario, edited, occurrences, READ_NOTE_PATH, scenarios, TRANSACTION_ACTIONS, type Target } from '../http/scenarios.ts';
import { mcpHeaders, toolsCallBody, TOOLS_LIST_BODY, verifyNoteContent, verifyToolResult, verifyToolsList } from '../mcp/requests.ts';

/** The scenarios, in the order they are measured and reported. */
export const KEYS = ['hello', 'read', 'list', 'search', 'preview', 'mcpToolsList', 'mcpGetNote', 'mcpSearch', 'mcpPreview', 'apply', 'apply10'] as const;

export type Key = (typeof KEYS)[number];

/** The search both surfaces run; `READ_NOTE_PATH` ranks among its results. */
export const SEARCH_QUERY = 'offline sync';

/** How the table names each scenario. */
export const LABELS: Record<Key, string> = {
  hello: 'hello-world: `GET /healthz`',
  read: 'REST read a note: `GET /api/dev/notes/{category}/{filename}`',
  list: 'REST list notes: `GET /api/dev/notes`',
  search: `REST search "${SEARCH_QUERY}": \`GET /api/dev/search\``,
  preview: `REST preview, ${TRANSACTION_ACTIONS} updates: \`POST /api/dev/transactions\``,
  mcpToolsList: 'MCP `tools/list`',
  mcpGetNote: 'MCP `tools/call` `get_note_content`',
  mcpSearch: `MCP \`tools/call\` \`search_notes\` "${SEARCH_QUERY}"`,
  mcpPreview: 'MCP `tools/call` `preview_note_writes`, 1 update',
  apply: 'REST apply, 1 new note: `POST /api/dev/transactions`, dryRun false',
  apply10: `REST apply, ${TRANSACTION_ACTIONS} new notes: \`POST /api/dev/transactions\`, dryRun false`,
};

/** Notes each applied request of a scenario writes; 0 for the scenarios that write nothing. */
export function notesPerRequest(key: Key): number {
  return key === 'apply' ? 1 : key === 'apply10' ? TRANSACTION_ACTIONS : 0;
}

/**
 * The scenarios a run measures, in KEYS order: all of them, or those `names` gives (`--scenario`), with hello-world
 * always (every row is read against it). Throws on an unknown name.
 */
export function selectKeys(names: readonly string[] | undefined): Key[] {
  if (names === undefined || names.length === 0) return [...KEYS];
  const unknown = names.filter((name) => !(KEYS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`--scenario: unknown ${unknown.join(', ')}; known: ${KEYS.join(', ')}`);
  return KEYS.filter((key) => key === 'hello' || names.includes(key));
}

/** One side's scenarios, and how many notes their applied writes have built so far (sent, or about to be). */
export interface SideScenarios {
  scenarios: Map<Key, LoadScenario<Key>>;
  applied(): number;
}

/**
 * Every scenario for one side's installation. `notes` is how many notes the vault holds before the first applied
 * write (the list must return all of them); the applied writes run last, so every other scenario sees the same
 * notes on both sides.
 */
export function beforeAfterScenarios(target: Target, notes: number): SideScenarios {
  const http = new Map(scenarios(target).map((s) => [s.key, s]));
  const reuse = (key: 'hello' | 'read' | 'preview'): LoadScenario<Key> => ({ ...http.get(key)!, key, label: LABELS[key] });
  const auth = { authorization: `Bearer ${target.token}` };
  const mcp = (key: Key, body: string, verify: (body: string) => boolean): LoadScenario<Key> => ({
    key,
    label: LABELS[key],
    options: { method: 'POST', path: '/api/mcp', headers: mcpHeaders(target.token), body },
    verify,
  });
  const mappingId = target.mappingId;
  const seed = target.seeds[0]!;
  const apply = applyScenario(target, 1);
  const apply10 = applyScenario(target, TRANSACTION_ACTIONS, `x${TRANSACTION_ACTIONS}-`);
  const list: Array<LoadScenario<Key>> = [
    reuse('hello'),
    reuse('read'),
    {
      key: 'list',
      label: LABELS.list,
      options: { method: 'GET', path: `/api/dev/notes?mappingId=${mappingId}`, headers: auth },
      verify: (body) => body.startsWith('{"notes":[') && body.includes('"truncated":false') && occurrences(body, '"path":"') === notes,
    },
    {
      key: 'search',
      label: LABELS.search,
      options: { method: 'GET', path: `/api/dev/search?mappingId=${mappingId}&query=${encodeURIComponent(SEARCH_QUERY)}`, headers: auth },
      verify: (body) => body.startsWith('{"results":[{"path":') && body.includes(`"path":${JSON.stringify(READ_NOTE_PATH)}`),
    },
    reuse('preview'),
    mcp('mcpToolsList', TOOLS_LIST_BODY, verifyToolsList),
    mcp('mcpGetNote', toolsCallBody('get_note_content', { mappingId, path: READ_NOTE_PATH }), verifyNoteContent),
    mcp(
      'mcpSearch',
      toolsCallBody('search_notes', { mappingId, query: SEARCH_QUERY }),
      (body) => verifyToolResult(body, '{"results":[{"path":') && body.includes(`"path":${JSON.stringify(READ_NOTE_PATH)}`),
    ),
    mcp(
      'mcpPreview',
      toolsCallBody('preview_note_writes', { mappingId, notes: [{ path: seed.path, content: edited(seed.content), expectedHash: seed.hash }] }),
      (body) => verifyToolResult(body, '{') && body.includes('"applied":false') && occurrences(body, '"status":"update"') === 1,
    ),
    { ...apply, key: 'apply', label: LABELS.apply },
    { ...apply10, key: 'apply10', label: LABELS.apply10 },
  ];
  return {
    scenarios: new Map(list.map((s) => [s.key, s])),
    applied: () => apply.built!() * notesPerRequest('apply') + apply10.built!() * notesPerRequest('apply10'),
  };
}
