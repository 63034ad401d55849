import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { staticScript, type StaticScript } from '../http/static-script.ts';
import { toolDescription, toolOperationsOf } from '../mcp/tool-list.ts';
import { INTELLIGENCE_OPERATIONS } from '../operations/intelligence-operations.ts';
import { publishedJsonSchema } from '../operations/json-schema.ts';
import { WEBMCP_HEADER, WEBMCP_HEADER_VALUE } from './bridge.ts';

/** The product-only MCP endpoint (spec 4.4) that the adapter forwards the published-intelligence tools to. */
const INTELLIGENCE_MCP_PATH = '/api/intelligence/mcp';

/**
 * The six published-intelligence tools as the page registers them: the hosted tools' names, titles, descriptions and
 * argument schemas, made from the same operations, so that the page and the hosted endpoint cannot differ.
 */
const INTELLIGENCE_TOOLS = toolOperationsOf(INTELLIGENCE_OPERATIONS).map((operation) => ({
  name: operation.mcp.name,
  title: operation.mcp.title,
  description: toolDescription(operation),
  inputSchema: publishedJsonSchema(operation.input, 'input'),
  annotations: { readOnlyHint: true },
}));

/**
 * kgate's WebMCP in-page adapter (spec 2.2, 4.5; docs/workspace.md). Once the page is ready it registers the
 * workspace's tools with `document.modelContext` (the browser's, or the maintained polyfill's where the browser has
 * none) and unregisters them when the page goes away. `vaultId` routes each call:
 * - `hosted:<mappingId>` forwards to the hosted MCP tool through the session bridge: the HttpOnly cookie, the
 *   WebMCP header, same origin. Page code never holds a bearer token.
 * - `local:<vault>` works on a local-only browser vault kept in IndexedDB, never uploaded: reads, writes and
 *   deletions (to a local trash) with the same rules as hosted ones (a preview first; to apply, an idempotency key and the current hash of every
 *   existing note; a stale hash changes nothing; a replayed key answers as before), evaluated in the page.
 * - no vaultId: the currently selected local vault (`local:default` until another is selected).
 * `query_saved_view` names a saved view as people named it and resolves the name (list_saved_knowledge_views) to
 * the id and version it calls query_saved_knowledge_view with (spec 4.2 rule 4). The six published-intelligence
 * tools (search_published_intelligence and the others, spec 4.2 and 4.4) take no vaultId: each is always the hosted
 * tool at the product-only endpoint `POST /api/intelligence/mcp`, through the same session bridge, with exactly its
 * own arguments, and never reads IndexedDB or any other local state, whatever vault is selected.
 * `window.kgateAdapter.run` takes the operation names of first-party pages (earlier ones, and `productIntelligence.*`
 * of a product page) and translates each to one of these tools, never to an operation selector (docs/views.md,
 * "Saved views in the page"; docs/packs.md, "Surfaces").
 */
const ADAPTER = `'use strict';
(() => {
  const context = document.modelContext;
  if (!context || typeof context.registerTool !== 'function') return;
  const HEADER = ${JSON.stringify(WEBMCP_HEADER)};
  const HEADER_VALUE = ${JSON.stringify(WEBMCP_HEADER_VALUE)};
  const MAX_LOCAL_NOTES = 100;
  let selectedLocal = 'default';

  // Local-only vaults: one IndexedDB database in this browser; nothing here is ever sent to the server.
  function openLocal() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open('kgate-local-vaults', 2);
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains('notes')) db.createObjectStore('notes', { keyPath: ['vault', 'path'] });
        if (!db.objectStoreNames.contains('applied')) db.createObjectStore('applied', { keyPath: ['vault', 'key'] });
        // Deleted notes go to the trash first, as hosted ones do.
        if (!db.objectStoreNames.contains('trash')) db.createObjectStore('trash', { keyPath: ['vault', 'id'] });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }
  async function local(stores, mode, work) {
    const db = await openLocal();
    try {
      const tx = db.transaction(stores, mode);
      const done = new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); tx.onabort = () => reject(tx.error); });
      done.catch(() => {}); // awaited below; a failed work() must not leave it unhandled
      const result = await work(tx);
      await done;
      return result;
    } finally {
      db.close();
    }
  }
  const asPromise = (request) => new Promise((resolve, reject) => { request.onsuccess = () => resolve(request.result); request.onerror = () => reject(request.error); });
  async function hashOf(content) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(content));
    return 'sha256:' + [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  class ToolError extends Error {
    constructor(code, message) { super(message); this.code = code; }
  }
  const fail = (code, message) => { throw new ToolError(code, message); };
  function validPath(path) {
    if (typeof path !== 'string' || !path.endsWith('.md') || path.startsWith('/') || path.split('/').some((s) => s === '' || s === '.' || s === '..') || /[\\u0000-\\u001f]/.test(path)) {
      fail('invalid_path', 'A note path is vault-relative and ends in .md.');
    }
    return path.normalize('NFC');
  }

  // Where a call goes: a hosted mapping, or a local vault.
  function route(vaultId) {
    if (vaultId === undefined) return { kind: 'local', vault: selectedLocal };
    if (typeof vaultId === 'string' && vaultId.startsWith('hosted:')) return { kind: 'hosted', mappingId: vaultId.slice(7) };
    if (typeof vaultId === 'string' && /^local:[A-Za-z0-9._-]{1,64}$/.test(vaultId)) return { kind: 'local', vault: vaultId.slice(6) };
    fail('invalid_request', 'vaultId is local:<vault> or hosted:<mappingId>, as list_vaults gives them.');
  }

  // Hosted calls: the hosted MCP tool, through the session bridge (the HttpOnly cookie goes by itself), at the MCP
  // gateway or at the product-only endpoint.
  let nextId = 1;
  async function hosted(name, args, endpoint = '/api/mcp') {
    const response = await fetch(endpoint, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', [HEADER]: HEADER_VALUE },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }),
    });
    const reply = await response.json();
    if (reply.error) fail(reply.error.data?.code ?? 'unavailable', reply.error.message);
    if (reply.result.isError) fail(reply.result.structuredContent?.code ?? 'internal', reply.result.structuredContent?.message ?? 'The tool failed.');
    return reply.result.structuredContent;
  }

  async function localNotes(vault) {
    return local(['notes'], 'readonly', async (tx) => (await asPromise(tx.objectStore('notes').getAll())).filter((n) => n.vault === vault));
  }
  // A plan of writes (kind 'write': create or replace) or deletions (kind 'delete'), as the hosted service plans them.
  async function localPlan(vault, notes, kind) {
    if (!Array.isArray(notes) || notes.length === 0 || notes.length > MAX_LOCAL_NOTES) fail('invalid_request', 'notes holds 1 to ' + MAX_LOCAL_NOTES + ' notes.');
    const stored = new Map((await localNotes(vault)).map((n) => [n.path, n]));
    const seen = new Set();
    const actions = [];
    for (const [index, note] of notes.entries()) {
      const path = validPath(note?.path);
      if (seen.has(path)) fail('invalid_request', 'One action per path.');
      seen.add(path);
      if (kind === 'write' && typeof note.content !== 'string') fail('invalid_request', 'content is a string.');
      const current = stored.get(path);
      const before = current ? await hashOf(current.content) : null;
      const after = kind === 'write' ? await hashOf(note.content) : null;
      let status = kind === 'delete' ? 'delete' : current ? (before === after ? 'no-op' : 'update') : 'create';
      let problem;
      if (kind === 'delete' && !current) { status = 'conflict'; problem = { code: 'not_found', detail: 'There is no such note.' }; }
      else if (note.expectedHash !== undefined && note.expectedHash !== before) { status = 'conflict'; problem = { code: 'conflict', detail: 'The note changed since the hash was read.' }; }
      actions.push({ index, path, status, beforeRevision: before, afterRevision: after, content: kind === 'write' ? note.content : null, current: current ? current.content : null, expectedHash: note.expectedHash, ...(problem ? { problem } : {}) });
    }
    return actions;
  }
  const present = (vault, actions, applied) => ({ vaultId: 'local:' + vault, applied, actions: actions.map(({ content, current, expectedHash, ...rest }) => rest) });

  async function previewLocal(vault, args, kind) {
    if (args.dryRun !== undefined) fail('invalid_request', 'A preview always dry-runs: drop dryRun.');
    return present(vault, await localPlan(vault, args.notes, kind), false);
  }

  // Applies exactly the approved notes: a new key, the hash of every existing note, nothing stale, all or nothing.
  async function applyLocal(vault, args, kind) {
    const key = args.idempotencyKey;
    if (typeof key !== 'string' || key.length === 0 || key.length > 200) fail('invalid_request', 'Applying needs an idempotencyKey.');
    const request = JSON.stringify({ kind, notes: args.notes });
    const earlier = await local(['applied'], 'readonly', (tx) => asPromise(tx.objectStore('applied').get([vault, key])));
    if (earlier) {
      if (earlier.request !== request) fail('idempotency_conflict', 'This key was used for another change.');
      return { ...earlier.result, replayed: true };
    }
    const actions = await localPlan(vault, args.notes, kind);
    for (const action of actions) {
      if (action.status === 'conflict') fail(action.problem.code, action.problem.detail + ' Nothing was changed.');
      if (action.beforeRevision !== null && action.expectedHash === undefined) fail('precondition_required', 'Changing or deleting ' + action.path + ' needs its expectedHash.');
    }
    const result = present(vault, actions, true);
    await local(['notes', 'applied', 'trash'], 'readwrite', async (tx) => {
      const notes = tx.objectStore('notes');
      // Re-checked inside the transaction, against the content the plan read (no other await may come between
      // IndexedDB requests, or the transaction would end): nothing stale overwrites.
      for (const action of actions) {
        const current = await asPromise(notes.get([vault, action.path]));
        if ((current ? current.content : null) !== action.current) { tx.abort(); fail('conflict', 'A note changed meanwhile: nothing was changed.'); }
      }
      for (const action of actions) {
        if (action.status === 'delete') {
          tx.objectStore('trash').put({ vault, id: crypto.randomUUID(), path: action.path, content: action.current, deletedAt: new Date().toISOString() });
          notes.delete([vault, action.path]);
        } else if (action.status !== 'no-op') notes.put({ vault, path: action.path, content: action.content });
      }
      tx.objectStore('applied').put({ vault, key, request, result });
    });
    return result;
  }

  const localTools = {
    async list_vaults() {
      const hostedVaults = await hosted('list_vaults', {}).then((r) => r.vaults, () => []);
      const locals = new Set([selectedLocal, ...(await local(['notes'], 'readonly', async (tx) => (await asPromise(tx.objectStore('notes').getAll())).map((n) => n.vault)))]);
      return {
        vaults: [
          ...[...locals].map((vault) => ({ vaultId: 'local:' + vault, name: vault, kind: 'local', selected: vault === selectedLocal })),
          ...hostedVaults.map((v) => ({ vaultId: 'hosted:' + v.mappingId, name: v.name, kind: 'hosted', selected: false })),
        ],
      };
    },
    async search_notes(vault, args) {
      const words = String(args.query ?? '').toLowerCase().split(/\\s+/).filter(Boolean);
      if (words.length === 0) fail('invalid_request', 'query names at least one word.');
      const hits = (await localNotes(vault)).filter((n) => words.every((w) => (n.path + '\\n' + n.content).toLowerCase().includes(w)));
      return { results: hits.slice(0, 20).map((n) => ({ path: n.path, snippet: n.content.slice(0, 200) })), truncated: hits.length > 20 };
    },
    async get_note_content(vault, args) {
      const path = validPath(args.path);
      const note = (await localNotes(vault)).find((n) => n.path === path);
      if (!note) fail('not_found', 'No such note.');
      return { path, content: note.content, contentHash: await hashOf(note.content) };
    },
    preview_note_writes: (vault, args) => previewLocal(vault, args, 'write'),
    apply_note_writes: (vault, args) => applyLocal(vault, args, 'write'),
    preview_note_deletions: (vault, args) => previewLocal(vault, args, 'delete'),
    apply_note_deletions: (vault, args) => applyLocal(vault, args, 'delete'),
  };

  // Saved views by name (spec 4.2 rule 4): the name resolves, through the hosted list of the scope's views, to the
  // view's id and version, and the explicit hosted tool query_saved_knowledge_view runs with exactly those.
  async function savedView(args) {
    const target = route(args.vaultId);
    if (target.kind !== 'hosted') fail('unavailable', 'Saved views are kept with hosted vaults: give vaultId hosted:<mappingId>.');
    const name = typeof args.view === 'string' ? args.view.trim() : '';
    if (name === '' || name.length > 100) fail('invalid_request', 'view is the name of a saved view of the scope (1 to 100 characters).');
    if (typeof args.contextScopeId !== 'string') fail('invalid_request', 'contextScopeId is a context scope of the vault (get_intelligence_capabilities lists them).');
    const scope = { mappingId: target.mappingId, contextScopeId: args.contextScopeId };
    const { views } = await hosted('list_saved_knowledge_views', scope);
    const view = views.find((v) => v.name.toLowerCase() === name.toLowerCase());
    if (!view) fail('not_found', 'No saved view of that name in this scope.');
    const version = args.version === undefined ? view.latestVersion : args.version;
    const page = { ...(args.limit === undefined ? {} : { limit: args.limit }), ...(args.cursor === undefined ? {} : { cursor: args.cursor }) };
    return hosted('query_saved_knowledge_view', { ...scope, viewId: view.id, version, ...page });
  }

  // Published intelligence (spec 4.4): always the hosted tool at the product-only endpoint, over the session bridge,
  // whatever vault is selected; nothing local is read. Exactly the tool's own arguments are sent: a vaultId, an
  // operation selector or any other name is refused here, before anything is sent.
  const INTELLIGENCE_MCP_PATH = ${JSON.stringify(INTELLIGENCE_MCP_PATH)};
  const INTELLIGENCE_TOOLS = ${JSON.stringify(INTELLIGENCE_TOOLS)};
  const INTELLIGENCE_ARGUMENTS = new Map(INTELLIGENCE_TOOLS.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})]));
  async function publishedIntelligence(name, input) {
    const args = input ?? {};
    if (typeof args !== 'object' || Array.isArray(args)) fail('invalid_request', 'The arguments of ' + name + ' are an object.');
    if (Object.prototype.hasOwnProperty.call(args, 'vaultId')) fail('invalid_request', 'Published intelligence reads no vault: ' + name + ' takes no vaultId.');
    const allowed = INTELLIGENCE_ARGUMENTS.get(name);
    const unknown = Object.keys(args).filter((key) => !allowed.includes(key));
    if (unknown.length > 0) fail('invalid_request', name + ' takes ' + allowed.join(', ') + '; not ' + unknown.join(', ') + '.');
    return hosted(name, args, INTELLIGENCE_MCP_PATH);
  }

  // Operation names of first-party pages, each translated to one explicit tool of this adapter (and so to explicit
  // hosted tools): never forwarded as an operation selector, and an unknown one is refused here. The
  // productIntelligence.* names are a product page's (docs/packs.md, "Surfaces").
  const LEGACY_OPERATIONS = {
    'knowledge.savedView': 'query_saved_view',
    savedView: 'query_saved_view',
    'knowledge.watchFindings': 'get_watch_findings',
    listVaults: 'list_vaults',
    readNote: 'get_note_content',
    searchNotes: 'search_notes',
    'productIntelligence.search': 'search_published_intelligence',
    'productIntelligence.state': 'get_published_intelligence_state',
    'productIntelligence.changes': 'get_published_intelligence_changes',
    'productIntelligence.timeline': 'get_published_intelligence_timeline',
    'productIntelligence.sources': 'list_published_intelligence_sources',
    'productIntelligence.insights': 'get_published_intelligence_insights',
  };
  window.kgateAdapter = Object.freeze({
    run(operation, input) {
      const tool = Object.prototype.hasOwnProperty.call(LEGACY_OPERATIONS, operation) ? LEGACY_OPERATIONS[operation] : undefined;
      if (!tool) return Promise.resolve({ isError: true, content: [{ type: 'text', text: 'invalid_request: unknown operation' }], structuredContent: { code: 'invalid_request', message: 'Unknown operation: call one of the tools by name.' } });
      return run(tool, input);
    },
  });

  const VAULT_ID = { type: 'string', description: 'local:<vault> (notes kept in this browser only) or hosted:<mappingId>, from list_vaults; omitted: the selected local vault' };
  const NOTES = { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' }, expectedHash: { type: 'string' } }, required: ['path', 'content'] } };
  const DELETIONS = { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, expectedHash: { type: 'string' } }, required: ['path'] } };
  const TOOLS = [
    { name: 'list_vaults', description: 'Lists the vaults this page can reach: local-only browser vaults and the hosted vaults of the signed-in person.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
    { name: 'search_notes', description: 'Searches the notes of one vault.', inputSchema: { type: 'object', properties: { vaultId: VAULT_ID, query: { type: 'string' } }, required: ['query'] }, annotations: { readOnlyHint: true } },
    { name: 'get_note_content', description: 'Reads one note and its content hash.', inputSchema: { type: 'object', properties: { vaultId: VAULT_ID, path: { type: 'string' } }, required: ['path'] }, annotations: { readOnlyHint: true } },
    { name: 'preview_note_writes', description: 'Previews creating or replacing notes; changes nothing. Show the preview to the person before applying.', inputSchema: { type: 'object', properties: { vaultId: VAULT_ID, notes: NOTES }, required: ['notes'] }, annotations: { readOnlyHint: true } },
    { name: 'apply_note_writes', description: 'Applies the exact notes the person approved, with a new idempotencyKey and the expectedHash of every existing note.', inputSchema: { type: 'object', properties: { vaultId: VAULT_ID, notes: NOTES, idempotencyKey: { type: 'string' } }, required: ['notes', 'idempotencyKey'] }, annotations: { readOnlyHint: false, destructiveHint: true } },
    { name: 'preview_note_deletions', description: 'Previews deleting notes (they go to the trash); changes nothing. Show the preview to the person before applying.', inputSchema: { type: 'object', properties: { vaultId: VAULT_ID, notes: DELETIONS }, required: ['notes'] }, annotations: { readOnlyHint: true } },
    { name: 'query_saved_view', description: 'Runs a saved knowledge view of a hosted vault’s context scope, named as people named it; answers the records with their evidence, and the view id, name and version used (the latest unless version pins one).', inputSchema: { type: 'object', properties: { vaultId: { type: 'string', description: 'hosted:<mappingId>, from list_vaults' }, contextScopeId: { type: 'string' }, view: { type: 'string', description: 'The saved view’s name' }, version: { type: 'integer', minimum: 1 }, limit: { type: 'integer', minimum: 1, maximum: 200 }, cursor: { type: 'string' } }, required: ['vaultId', 'contextScopeId', 'view'] }, annotations: { readOnlyHint: true } },
    { name: 'get_watch_findings', description: 'Reads the findings of the watches of a hosted vault’s context scope, with their review state (people review them on the workspace page).', inputSchema: { type: 'object', properties: { vaultId: { type: 'string', description: 'hosted:<mappingId>, from list_vaults' }, contextScopeId: { type: 'string' }, watchId: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 200 }, cursor: { type: 'string' } }, required: ['vaultId', 'contextScopeId'] }, annotations: { readOnlyHint: true } },
    { name: 'apply_note_deletions', description: 'Moves the exact notes the person approved to the trash, with a new idempotencyKey and the expectedHash of each.', inputSchema: { type: 'object', properties: { vaultId: VAULT_ID, notes: DELETIONS, idempotencyKey: { type: 'string' } }, required: ['notes', 'idempotencyKey'] }, annotations: { readOnlyHint: false, destructiveHint: true } },
  ];

  async function run(name, input) {
    try {
      if (INTELLIGENCE_ARGUMENTS.has(name)) {
        const result = await publishedIntelligence(name, input);
        return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
      }
      const { vaultId, ...args } = input ?? {};
      if (name === 'list_vaults') return { structuredContent: await localTools.list_vaults() };
      if (name === 'query_saved_view') {
        const result = await savedView({ vaultId, ...args });
        return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
      }
      const target = route(vaultId);
      if (target.kind === 'local' && !localTools[name]) fail('unavailable', name + ' reads hosted knowledge: give vaultId hosted:<mappingId>.');
      const result = target.kind === 'hosted' ? await hosted(name, { mappingId: target.mappingId, ...args }) : await localTools[name](target.vault, args);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      const code = error instanceof ToolError ? error.code : 'internal';
      return { isError: true, content: [{ type: 'text', text: code + ': ' + error.message }], structuredContent: { code, message: error.message } };
    }
  }

  const registration = new AbortController();
  const register = () => {
    for (const tool of [...TOOLS, ...INTELLIGENCE_TOOLS]) context.registerTool({ ...tool, execute: (input) => run(tool.name, input) }, { signal: registration.signal }).catch(() => {});
    document.documentElement.dataset.webmcp = 'ready';
  };
  window.addEventListener('pagehide', () => registration.abort(), { once: true });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', register, { once: true });
  else register();
})();
`;

/** The adapter at its address (its content hash makes it safe to cache for long). */
export const WEBMCP_ADAPTER = staticScript('webmcp', ADAPTER);

let polyfill: StaticScript | undefined;

/**
 * The polyfill (`@mcp-b/webmcp-polyfill`, loaded first, a no-op where the browser has WebMCP) at its address; read
 * and hashed once, on first use.
 */
export function webmcpPolyfill(): StaticScript {
  return (polyfill ??= staticScript('webmcp-polyfill', readFileSync(createRequire(import.meta.url).resolve('@mcp-b/webmcp-polyfill/iife'), 'utf8')));
}
