import { expect } from 'vitest';
import type { TestGateway } from './gateway.ts';
import { snapshotOf, type ApiResponse, type RestClient } from './rest-client.ts';
import { expectProblem, newKey } from './rest-transactions.ts';

/** A scope as the REST API answers it. */
export interface ScopeBody {
  id: string;
  mappingId: string;
  name: string;
  pathPrefixes: string[];
  tags: string[];
  audience: { minimumRole: 'owner' | 'admin' | 'editor' | 'viewer'; agents: boolean };
  createdAt: string;
  updatedAt: string;
}

/** The answer of a scope change (create, update, delete). */
export interface ScopeChangeBody {
  dryRun: boolean;
  applied: boolean;
  scope: ScopeBody;
}

/** The answer of GET /scopes. */
export interface ScopeListBody {
  view: 'managed' | 'usable';
  scopes: ScopeBody[];
  truncated: boolean;
}

/** A scope definition as the body of POST /scopes and POST /scopes/update takes it. */
export interface ScopeDefinitionBody {
  name: string;
  pathPrefixes?: string[];
  tags?: string[];
  audience?: { minimumRole: string; agents: boolean };
}

/** Every row of context_scopes, and the notes, trash and events: equal before and after means nothing changed. */
export async function scopeSnapshot(gateway: Pick<TestGateway, 'db'>): Promise<string> {
  const rows = await gateway.db.query('SELECT * FROM context_scopes ORDER BY id');
  return JSON.stringify([rows, await snapshotOf(gateway)]);
}

/** Sends a request that must be refused with `status` and `code`, and asserts that no scope (nor note) changed. */
export async function expectScopesUnchanged(
  gateway: Pick<TestGateway, 'db'>,
  send: () => Promise<ApiResponse<unknown>>,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  const before = await scopeSnapshot(gateway);
  const body = expectProblem(await send(), status, code);
  expect(await scopeSnapshot(gateway)).toBe(before);
  return body;
}

/** The scope requests of one client: previews by default, `apply` sends dryRun false with a new Idempotency-Key. */
export function scopeRequests(api: RestClient, mappingId: string) {
  const keyed = (apply: boolean) => (apply ? { headers: { 'Idempotency-Key': newKey() } } : {});
  return {
    list: () => api.get<ScopeListBody>('/scopes', { query: { mappingId } }),
    create: (definition: Record<string, unknown>, apply = false) =>
      api.post<ScopeChangeBody>('/scopes', { json: { mappingId, ...definition, ...(apply ? { dryRun: false } : {}) }, ...keyed(apply) }),
    update: (scopeId: string, definition: Record<string, unknown>, apply = false) =>
      api.post<ScopeChangeBody>('/scopes/update', { json: { mappingId, scopeId, ...definition, ...(apply ? { dryRun: false } : {}) }, ...keyed(apply) }),
    remove: (scopeId: string, apply = false) =>
      api.delete<ScopeChangeBody>('/scopes', { query: { mappingId, scopeId, ...(apply ? { dryRun: false } : {}) }, ...keyed(apply) }),
  };
}

/** A full definition (what updates take), with an audience open to viewers and their agents unless given. */
export function definition(name: string, more: Partial<ScopeDefinitionBody> = {}): Required<ScopeDefinitionBody> {
  return { name, pathPrefixes: [], tags: [], audience: { minimumRole: 'viewer', agents: true }, ...more };
}
