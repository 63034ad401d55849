import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestGateway } from './gateway.ts';
import { snapshotOf, type ApiResponse, type RestClient } from './rest-client.ts';

/** The content hash clients compute themselves: `sha256:` + hex of the UTF-8 bytes (an oracle independent of src/). */
export function hashOf(content: string): string {
  return `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;
}

/** A token that differs from `token` in its last character only. */
export function tamperedToken(token: string): string {
  return `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;
}

/** A fresh idempotency key. */
export const newKey = (): string => randomUUID();

/** A note action as clients send it. */
export type Action =
  | { type: 'write-note'; path: string; content: string; expectedHash?: string }
  | { type: 'delete-note'; path: string; expectedHash?: string }
  | { type: 'restore-note'; trashId: string; path: string }
  | { type: 'move-note'; path: string; newPath: string; expectedHash?: string; rewriteLinks?: boolean };

/** The result of one action, as the API answers it. */
export interface ActionResult {
  index: number;
  type: string;
  path: string;
  newPath?: string;
  status: string;
  beforeRevision: string | null;
  afterRevision: string | null;
  trashId?: string;
  diff?: string;
  diffTruncated?: boolean;
  linksRewritten?: number;
  linksSkipped?: number;
  problem?: { code: string; detail: string };
}

/** The body of a previewed or applied transaction. */
export interface TransactionBody {
  mappingId: string;
  dryRun: boolean;
  applied: boolean;
  actions: ActionResult[];
  /** Previews: the receipt recorded (docs/proposals.md). */
  receipt?: { id: string; notesHash: string; againstHash: string };
  /** Applies: the preview receipt matched, or null. */
  previewReceipt?: { id: string; previewedAt: string } | null;
}

/** A provenance event, as GET /events answers it. */
export interface EventBody {
  seq: number;
  id: string;
  kind: string;
  path: string | null;
  beforeRevision: string | null;
  afterRevision: string | null;
  trashId: string | null;
  idempotencyKey: string | null;
  credentialKind: string;
  client: string | null;
  details: Record<string, unknown>;
  createdAt: string;
}

/** A trash entry, as GET /notes/trash answers it. */
export interface TrashEntryBody {
  trashId: string;
  originalPath: string;
  deletedAt: string;
  deletedBy: string;
  size: number;
  contentHash: string;
}

/** Previews a transaction (no dryRun field: previewing is the default). */
export function preview(api: RestClient, mappingId: string, actions: readonly Action[]): Promise<ApiResponse<TransactionBody>> {
  return api.post<TransactionBody>('/transactions', { json: { mappingId, actions } });
}

/** Applies a transaction under an idempotency key (a new one unless given). */
export function apply(
  api: RestClient,
  mappingId: string,
  actions: readonly Action[],
  key: string = newKey(),
): Promise<ApiResponse<TransactionBody>> {
  return api.post<TransactionBody>('/transactions', { json: { mappingId, dryRun: false, actions }, headers: { 'idempotency-key': key } });
}

/** Creates notes in one applied transaction; returns each path's content hash. */
export async function seedNotes(api: RestClient, mappingId: string, notes: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  const response = await apply(
    api,
    mappingId,
    Object.entries(notes).map(([path, content]) => ({ type: 'write-note' as const, path, content })),
  );
  expect(response.status, response.text).toBe(200);
  return Object.fromEntries(Object.entries(notes).map(([path, content]) => [path, hashOf(content)]));
}

/** Every event of the caller on a mapping (the API pages them; this follows `nextSince` to the end). */
export async function allEvents(api: RestClient, mappingId: string): Promise<EventBody[]> {
  const events: EventBody[] = [];
  let since = 0;
  for (;;) {
    const page = await api.get<{ events: EventBody[]; nextSince: number; truncated: boolean }>('/events', {
      query: { mappingId, since, limit: 1000 },
    });
    expect(page.status, page.text).toBe(200);
    events.push(...page.body.events);
    if (!page.body.truncated) return events;
    since = page.body.nextSince;
  }
}

/** Asserts an RFC 9457 problem response with the given status and stable code; returns its body. */
export function expectProblem(response: ApiResponse<unknown>, status: number, code: string): Record<string, unknown> {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const body = response.body as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: `urn:kgate:problem:${code}` });
  expect(body.requestId).toBe(response.headers.get('x-request-id'));
  return body;
}

/**
 * Sends a request that must be refused, and asserts both the problem and that notes, trash and events of the whole
 * database are byte-identical before and after.
 */
export async function expectRejected(
  gateway: Pick<TestGateway, 'db'>,
  send: () => Promise<ApiResponse<unknown>>,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  const before = await snapshotOf(gateway);
  const response = await send();
  const body = expectProblem(response, status, code);
  expect(await snapshotOf(gateway)).toBe(before);
  return body;
}

/** A problem body without its per-request id, for comparing two answers. */
export function withoutRequestId(body: Record<string, unknown>): Record<string, unknown> {
  const { requestId: _requestId, ...rest } = body;
  return rest;
}
