/**
 * Knowledge tools: p50 and p95 of every knowledge tool on the 20,000-note synthetic vault (which carries decisions,
 * commitments, questions, entities and typed relations, `vault-knowledge.ts`), on embedded PGlite and on server
 * PostgreSQL, beside `get_note_content` measured the same way in the same run.
 *
 * Each tool is its operation of the table (`src/surfaces/operations/table.ts`) called in-process as the invocation
 * pipeline calls it: the input parsed by its schema, `run` with the owner's principal, the output parsed by its
 * output schema (so a wrong shape fails the benchmark). No HTTP: the transport is measured by the MCP throughput
 * benchmark. Calls go in rounds, each round calling every tool once in a rotating order, after warm-up rounds.
 * The scope is the whole vault, so each read works on every note.
 */
import { createServices } from '../src/app/services.ts';
import type { Actor } from '../src/kernel/principal.ts';
import type { AnyOperation, OperationContext } from '../src/surfaces/operations/operation.ts';
import { OPERATIONS } from '../src/surfaces/operations/table.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count, fixed } from './support/format.ts';
import { percentile } from './support/stats.ts';
import type { KgateEngine } from './search/kgate-engine.ts';
import { onBothEngines } from './support/both-engines.ts';

/** Milliseconds with two decimals. */
const ms = (value: number): string => `${fixed(value, 2)} ms`;

/** Rounds before measuring, not kept. */
const WARMUP_ROUNDS = 5;
/** Rounds measured: each calls every tool once. */
const MEASURED_ROUNDS = 100;

/** One timed call: a tool and the arguments it is called with in a given round. */
interface ToolCall {
  tool: string;
  args: (round: number) => Record<string, unknown>;
}

/** p50 and p95 of one tool on one engine. */
interface ToolLatency {
  tool: string;
  p50: number;
  p95: number;
  /** Items the tool answered with in the last round, for the reader's sense of the work. */
  items: number;
}

function operationOf(tool: string): AnyOperation {
  const operation = OPERATIONS.find((o) => o.mcp?.name === tool);
  if (!operation) throw new Error(`no operation publishes ${tool}`);
  return operation;
}

/** Items in an answer: the length of its first list. */
function itemsOf(answer: Record<string, unknown>): number {
  const list = Object.values(answer).find(Array.isArray) as unknown[] | undefined;
  return list?.length ?? 1;
}

/** The calls of the benchmark on one engine: sample notes, decisions and entities read from the vault itself. */
async function callsOn(engine: KgateEngine, scopeId: string): Promise<ToolCall[]> {
  const base = { mappingId: engine.mappingId, contextScopeId: scopeId };
  const notes = await engine.db.query<{ path: string }>('SELECT path FROM notes ORDER BY path COLLATE "C"');
  const decisions = await engine.db.query<{ record_id: string }>("SELECT record_id FROM knowledge_records WHERE kind = 'decision' ORDER BY record_id");
  const entity = await engine.db.query<{ t: string; i: string }>(
    "SELECT record ->> 'entityType' AS t, record ->> 'entityId' AS i FROM knowledge_records WHERE kind = 'assertion' ORDER BY record_id LIMIT 1",
  );
  const linked = await engine.db.query<{ from_path: string; to_path: string }>(
    `SELECT n.path AS from_path, m.path AS to_path FROM note_links l JOIN notes n ON n.id = l.note_id
       JOIN notes m ON m.vault_id = n.vault_id AND m.path_key LIKE '%/' || l.target_name_key || '.md'
      WHERE l.target <> '' ORDER BY n.path COLLATE "C" LIMIT 200`,
  );
  if (notes.length === 0 || decisions.length === 0 || entity.length === 0 || linked.length === 0) {
    throw new Error('the synthetic vault has no notes, decisions, entities or links to sample');
  }
  const pick = <T>(list: readonly T[], round: number): T => list[(round * 7919) % list.length]!;
  const calls: ToolCall[] = [
    { tool: 'get_note_content', args: (r) => ({ mappingId: engine.mappingId, path: pick(notes, r).path }) },
    { tool: 'get_intelligence_capabilities', args: () => ({ mappingId: engine.mappingId }) },
    { tool: 'get_decisions', args: () => ({ ...base }) },
    { tool: 'get_decision_evidence', args: (r) => ({ ...base, decisionId: pick(decisions, r).record_id }) },
    { tool: 'get_temporal_records', args: () => ({ ...base, mode: 'current' }) },
    { tool: 'get_temporal_records known-at', args: () => ({ ...base, mode: 'known-at', at: new Date().toISOString() }) },
    { tool: 'get_temporal_records history (one entity)', args: () => ({ ...base, mode: 'history', entityType: entity[0]!.t, entityId: entity[0]!.i }) },
    { tool: 'get_changes', args: () => ({ ...base }) },
    { tool: 'get_open_questions', args: () => ({ ...base }) },
    { tool: 'get_commitments', args: () => ({ ...base }) },
  ];
  const published = new Set(OPERATIONS.flatMap((o) => (o.mcp ? [o.mcp.name] : [])));
  if (published.has('find_related')) calls.push({ tool: 'find_related', args: (r) => ({ ...base, path: pick(notes, r).path }) });
  if (published.has('get_relationship_explanation')) {
    calls.push({
      tool: 'get_relationship_explanation',
      args: (r) => ({ ...base, from: pick(linked, r).from_path, to: pick(linked, r).to_path, type: 'explicit' }),
    });
  }
  if (published.has('get_contradictions')) calls.push({ tool: 'get_contradictions', args: () => ({ ...base }) });
  return calls;
}

/** Steps of the published work session the trace benchmark reconstructs, and references per step. */
const TRACE_STEPS = 50;
const TRACE_REFERENCES = 10;

/**
 * The setup of the brief and trace reads: every section of the scope's brief built (as a person does on the page),
 * and one work session published with TRACE_STEPS steps of TRACE_REFERENCES references each (notes at their
 * revisions, decisions, a note at an old revision, a local run), so that get_execution_trace resolves 500 references
 * a call.
 */
async function synthesisAndTraceCalls(engine: KgateEngine, services: ReturnType<typeof createServices>, scopeId: string): Promise<ToolCall[]> {
  const person: Actor = { accountId: engine.actor.accountId, credentialKind: 'session' };
  const authorized = await services.scopes.authorize(person, engine.mappingId, scopeId);
  await services.synthesis.rebuild(person, authorized);
  const notes = await engine.db.query<{ path: string; content_hash: string }>(`SELECT path, content_hash FROM notes ORDER BY path COLLATE "C" LIMIT ${TRACE_STEPS * 6}`);
  const decisions = await engine.db.query<{ record_id: string }>(`SELECT record_id FROM knowledge_records WHERE kind = 'decision' ORDER BY record_id LIMIT ${TRACE_STEPS * 2}`);
  const steps = Array.from({ length: TRACE_STEPS }, (_, s) => ({
    summary: `Step ${s + 1}`,
    references: Array.from({ length: TRACE_REFERENCES }, (_, r) => {
      const note = notes[(s * TRACE_REFERENCES + r) % notes.length]!;
      if (r === 7) return { kind: 'record' as const, recordId: decisions[(s * 2) % decisions.length]!.record_id };
      if (r === 8) return { kind: 'note' as const, path: note.path, revision: 'sha256:an-older-revision' };
      if (r === 9) return { kind: 'local' as const, label: 'Local run' };
      return { kind: 'note' as const, path: note.path, revision: note.content_hash };
    }),
  }));
  await services.traces.publish(person, authorized, { sessionId: 'bench-session', title: 'Benchmark session', steps });
  const base = { mappingId: engine.mappingId, contextScopeId: scopeId };
  return [
    { tool: 'get_living_synthesis', args: () => ({ ...base }) },
    { tool: 'get_execution_trace', args: () => ({ ...base, sessionId: 'bench-session' }) },
  ];
}

/** Open commitments the watched view's setup writes, each a finding of the watch. */
const WATCHED_TASKS = 20;

/**
 * The setup of the saved-view and watch reads (docs/views.md): a view of the open commitments, decision candidates
 * and questions of the whole vault by due date, a watch of a narrower view (a watch of the first would be over its
 * limit on this vault and compare nothing), and one governed write that makes WATCHED_TASKS findings of it.
 */
async function viewAndWatchCalls(engine: KgateEngine, services: ReturnType<typeof createServices>, scopeId: string): Promise<ToolCall[]> {
  const owner: Actor = { accountId: engine.actor.accountId, credentialKind: 'personal_access_token', client: 'kgate-bench' };
  const authorized = await services.scopes.authorize(owner, engine.mappingId, scopeId);
  const open = await services.views.create(owner, authorized, { name: 'Open work', definition: { kinds: ['commitment', 'decision', 'question'], sort: 'due' } });
  const watched = await services.views.create(owner, authorized, { name: 'Bench follow-ups', definition: { kinds: ['commitment'], text: 'bench follow-up' } });
  await services.views.createWatch(owner, authorized, { viewId: watched.view.id, version: null });
  const tasks = Array.from({ length: WATCHED_TASKS }, (_, i) => `- [ ] Bench follow-up ${i + 1}`).join('\n');
  const actions = [{ type: 'write-note' as const, path: 'Bench/Follow-ups.md', content: `# Follow-ups\n\n${tasks}\n` }];
  await services.idempotency.run({ accountId: owner.accountId, key: `bench-watch-${Date.now()}`, operation: 'bench', input: actions }, (commit) =>
    services.notes.runTransaction({ actor: owner, mappingId: engine.mappingId, dryRun: false, actions, capability: 'direct', commit }),
  );
  const base = { mappingId: engine.mappingId, contextScopeId: scopeId };
  return [
    { tool: 'list_saved_knowledge_views', args: () => ({ ...base }) },
    { tool: 'query_saved_knowledge_view', args: () => ({ ...base, viewId: open.view.id }) },
    { tool: 'get_watch_findings', args: () => ({ ...base }) },
  ];
}

/** Times every call on one engine in rotating rounds; the first wrong answer becomes a failure. */
async function measureEngine(engine: KgateEngine, failures: string[]): Promise<ToolLatency[]> {
  const services = createServices(engine.db);
  const actor: Actor = { accountId: engine.actor.accountId, credentialKind: 'personal_access_token', client: 'kgate-bench' };
  const principal = await services.tokens.principalFor(actor);
  const ctx: OperationContext = {
    principal,
    services: { ...services, links: { baseUrl: 'http://localhost:8787' }, runtimeCatalogue: { built: new Set(), modelConfigured: false } },
    noteChanges: 'agent',
  };
  const scope = await services.scopes.create(actor, engine.mappingId, { name: 'Whole vault', pathPrefixes: [], tags: [], audience: { minimumRole: 'viewer', agents: true } });
  const briefAndTrace = await synthesisAndTraceCalls(engine, services, scope.id);
  const viewsAndWatches = await viewAndWatchCalls(engine, services, scope.id);
  // The steady state: planner statistics as the gateway's refresh (PGlite) or autovacuum (PostgreSQL) leave them
  // seconds after an import, not the empty ones of tables that have just been filled.
  await engine.db.query('ANALYZE');
  const calls = [...(await callsOn(engine, scope.id)), ...briefAndTrace, ...viewsAndWatches];
  const samples = new Map(calls.map((c) => [c.tool, [] as number[]]));
  const items = new Map<string, number>();
  for (let round = 0; round < WARMUP_ROUNDS + MEASURED_ROUNDS; round++) {
    for (let k = 0; k < calls.length; k++) {
      const call = calls[(k + round) % calls.length]!;
      const operation = operationOf(call.tool.split(' ')[0]!);
      const started = performance.now();
      try {
        const answer = operation.output.parse(await operation.run(ctx, operation.input.parse(call.args(round))));
        const elapsed = performance.now() - started;
        if (round >= WARMUP_ROUNDS) samples.get(call.tool)!.push(elapsed);
        items.set(call.tool, itemsOf(answer));
      } catch (error) {
        if (!failures.some((f) => f.includes(call.tool))) failures.push(`${engine.name}, ${call.tool}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return calls.map((c) => {
    const values = samples.get(c.tool)!;
    return { tool: c.tool, p50: percentile(values, 50), p95: percentile(values, 95), items: items.get(c.tool) ?? 0 };
  });
}

/** Knowledge records of the vault by kind, for the report. */
async function recordCounts(engine: KgateEngine): Promise<string> {
  const rows = await engine.db.query<{ kind: string; n: number }>('SELECT kind, count(*)::int AS n FROM knowledge_records GROUP BY kind ORDER BY kind');
  return rows.map((r) => `${count(r.n)} ${r.kind}s`).join(', ');
}

async function run(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const { results: measured, details, failures } = await onBothEngines('knowledge tools', options, async (engine, report) => {
    report.details.push(`- ${engine.name} ${engine.version}: ${await recordCounts(engine)}; import with compilation ${ms(engine.importMs)}.`);
    return measureEngine(engine, report.failures);
  });
  const results = measured.map((r) => ({ engine: r.engine, latencies: r.value }));
  const tools = results[0]?.latencies.map((l) => l.tool) ?? [];
  const table = [
    `| Tool (${count(options.notes)} notes, whole-vault scope) | ${results.map((r) => `${r.engine} p50 | ${r.engine} p95 | items`).join(' | ')} |`,
    `|---|${results.map(() => '---:|---:|---:').join('|')}|`,
    ...tools.map((tool) => {
      const cells = results.map((r) => {
        const l = r.latencies.find((x) => x.tool === tool)!;
        return `${ms(l.p50)} | ${ms(l.p95)} | ${count(l.items)}`;
      });
      return `| ${tool === 'get_note_content' ? 'get_note_content (baseline)' : tool} | ${cells.join(' | ')} |`;
    }),
  ];
  details.unshift(
    `Each tool is called in-process through its operation (input schema, run, output schema), ${MEASURED_ROUNDS} rounds after ${WARMUP_ROUNDS} ` +
      'warm-up rounds, every round calling every tool once in a rotating order, after the tables were analyzed. Lists use their default limit (50); ' +
      '"items" is the length of the answer\'s list in the last round.',
  );
  return { table, details, failures };
}

/** See the module comment. */
export const knowledgeTools: Benchmark = { title: 'Knowledge tools', run };
