/**
 * Checks shared by the Product Runtime acceptance tests: a refusal's envelope, the organization's metered count, and
 * the customer's view of a vault (read with the customer's personal token through the Developer REST API) for
 * "nothing changed" assertions.
 */
import { expect } from 'vitest';
import type { TestGateway } from './gateway.ts';
import { restClient } from './rest-client.ts';
import type { RuntimeAnswer, RuntimeChainSetup } from './runtime-gateway.ts';

/** Asserts a refusal: the HTTP status, and an error envelope of V1 whose first problem has `code`; answers the problem. */
export function expectRuntimeProblem(answer: RuntimeAnswer<unknown>, status: number, code: string): { code: string; message: string; details?: Record<string, unknown> } {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toMatchObject({ version: 1, kind: 'service.problem', status: 'error', data: null, problems: [{ code, message: expect.any(String) }] });
  expect(answer.body.problems).toHaveLength(1);
  expect(answer.body.requestId).toBe(answer.headers.get('x-request-id'));
  expect(answer.headers.get('x-service-runtime-version')).toBe('1');
  return answer.body.problems[0]!;
}

/** The organization's Product Runtime operations counted this month (0 before the first one). */
export async function usageOf(gateway: Pick<TestGateway, 'db'>, organizationId: string): Promise<number> {
  const rows = await gateway.db.query<{ used: number }>(
    `SELECT used FROM runtime_usage WHERE organization_id = $1 AND month_start = date_trunc('month', now() AT TIME ZONE 'UTC')::date`,
    [organizationId],
  );
  return rows[0]?.used ?? 0;
}

/**
 * The customer's view of the chain's vault: its notes (with their content hashes) and its provenance events, read with
 * the customer's personal token through the Developer REST API, as JSON for equality.
 */
export async function vaultState(gateway: Pick<TestGateway, 'url'>, chain: Pick<RuntimeChainSetup, 'customer'>): Promise<string> {
  const api = restClient(gateway, chain.customer.token);
  const mappingId = chain.customer.mapping.id;
  const notes = await api.get('/notes', { query: { mappingId, limit: 1000 } });
  const events = await api.get('/events', { query: { mappingId, order: 'desc', limit: 100 } });
  expect(notes.status, notes.text).toBe(200);
  expect(events.status, events.text).toBe(200);
  return JSON.stringify({ notes: notes.body, events: events.body });
}
