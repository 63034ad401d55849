/**
 * The requests of the Product Runtime benchmark, in pairs of the same work through the Developer REST API and through
 * the Product Runtime on one server, each with a check of every response body (autocannon counts a failed check as a
 * mismatch, which fails the benchmark):
 * - hello-world: `GET /healthz`, the server's floor;
 * - reading one note (the demo vault's `Projects/Offline Sync.md`): `GET /api/dev/notes/by-path` with the owner's
 *   personal access token, and `GET /workspaces/{ws}/vaults/{v}/notes/content` with a runtime access token;
 * - publishing one new note (about 2 KB, a path of its own and a fresh Idempotency-Key per request, dryRun false):
 *   `POST /api/dev/notes`, and `POST /workspaces/{ws}/vaults/{v}/notes/publish`;
 * - authenticating: `GET /api/account` with the personal access token (who the token acts for; counts nothing), and
 *   the client credentials grant, `POST /api/product/v1/oauth/token` with client_secret_post, each answer a new token.
 */
import { randomBytes } from 'node:crypto';
import type { LoadScenario } from '../http/load.ts';
import { READ_NOTE_PATH, syntheticContents } from '../http/scenarios.ts';
import { tokenRequestBody, type RuntimeInstallation } from './setup.ts';

/** The rows, in the order a round measures them (the two of a pair swap places every other round). */
export const ROW_KEYS = ['hello', 'devRead', 'runtimeRead', 'devPublish', 'runtimePublish', 'account', 'grant'] as const;
/** One row of the benchmark. */
export type RowKey = (typeof ROW_KEYS)[number];

/** The Developer REST row each Product Runtime row is compared with. */
export const PAIRS: ReadonlyArray<{ runtime: RowKey; baseline: RowKey; what: string }> = [
  { runtime: 'runtimeRead', baseline: 'devRead', what: 'read one note' },
  { runtime: 'runtimePublish', baseline: 'devPublish', what: 'publish one new note' },
  { runtime: 'grant', baseline: 'account', what: 'authenticate' },
];

/** How the report names each row. */
const ROW_LABELS: Record<RowKey, string> = {
  hello: 'hello-world: `GET /healthz`',
  devRead: 'read a note, Developer REST: `GET /api/dev/notes/by-path`',
  runtimeRead: 'read a note, Product Runtime: `GET …/vaults/{v}/notes/content`',
  devPublish: 'publish a new note, Developer REST: `POST /api/dev/notes`',
  runtimePublish: 'publish a new note, Product Runtime: `POST …/vaults/{v}/notes/publish`',
  account: 'personal access token: `GET /api/account`',
  grant: 'client credentials grant: `POST /api/product/v1/oauth/token`',
};

/** The name of a row in the report's tables and text. */
export function rowLabel(key: RowKey): string {
  return ROW_LABELS[key];
}

/** Where published notes go: `<prefix><runId>/<n>.md`, one folder per surface, so each can be counted after the run. */
export const PUBLISH_PREFIX: Record<'devPublish' | 'runtimePublish', string> = { devPublish: 'bench-dev-', runtimePublish: 'bench-runtime-' };

/** A row's request as autocannon sends it, and how many distinct publications it has built so far. */
export interface RowScenario extends LoadScenario<RowKey> {
  built?: () => number;
}

/** Requests per publishing row built so far, across rounds (paths and keys never repeat within a run). */
export interface PublishCounters {
  devPublish: number;
  runtimePublish: number;
}

/** The Markdown every publication writes (the first synthetic note of seed 42, about 2 KB). */
const PUBLISHED_CONTENT = syntheticContents(1)[0]!;

/**
 * The scenario of `key` on the installation; `runtimeToken` is a fresh access token for the runtime rows (tokens live
 * 15 minutes, so each row gets its own). `runId` keeps folders and idempotency keys of different runs apart.
 */
export function rowScenario(key: RowKey, target: RuntimeInstallation, runtimeToken: string, runId: string, counters: PublishCounters): RowScenario {
  const pat = { authorization: `Bearer ${target.token}` };
  const runtime = { authorization: `Bearer ${runtimeToken}`, 'x-service-runtime-version': '1' };
  const vault = `/workspaces/${target.workspaceId}/vaults/${target.vaultId}`;
  const notePath = encodeURIComponent(READ_NOTE_PATH);
  const readsNote = (body: string) => body.includes(`"path":${JSON.stringify(READ_NOTE_PATH)}`) && body.includes('"contentHash":"sha256:');
  const created = (body: string) => body.includes('"applied":true') && body.includes('"status":"create"');
  const envelope = (kind: string) => (body: string) => body.startsWith(`{"version":1,"kind":"${kind}","status":"ok"`);
  const publishing = (row: 'devPublish' | 'runtimePublish', label: string, path: string, headers: Record<string, string>, head: (notePath: string) => string, verify: (body: string) => boolean): RowScenario => ({
    key: row,
    label,
    options: {
      path,
      requests: [
        {
          method: 'POST',
          path,
          setupRequest(request) {
            const n = ++counters[row];
            const id = `${PUBLISH_PREFIX[row]}${runId}-${n}`;
            return { ...request, headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': id }, body: head(`${PUBLISH_PREFIX[row]}${runId}/${n}.md`) };
          },
        },
      ],
    },
    verify,
    built: () => counters[row],
  });
  const content = JSON.stringify(PUBLISHED_CONTENT);
  switch (key) {
    case 'hello':
      return { key, label: ROW_LABELS.hello, options: { method: 'GET', path: '/healthz' }, verify: (body) => body.startsWith('{"status":"ok"') };
    case 'devRead':
      return {
        key,
        label: ROW_LABELS.devRead,
        options: { method: 'GET', path: `/api/dev/notes/by-path?mappingId=${target.mappingId}&path=${notePath}`, headers: pat },
        verify: readsNote,
      };
    case 'runtimeRead':
      return {
        key,
        label: ROW_LABELS.runtimeRead,
        options: { method: 'GET', path: `${vault}/notes/content?path=${notePath}`, headers: runtime },
        verify: (body) => envelope('service.note')(body) && readsNote(body),
      };
    case 'devPublish':
      return publishing('devPublish', ROW_LABELS.devPublish, '/api/dev/notes', pat, (p) => `{"mappingId":"${target.mappingId}","path":${JSON.stringify(p)},"content":${content},"dryRun":false}`, created);
    case 'runtimePublish':
      return publishing(
        'runtimePublish',
        ROW_LABELS.runtimePublish,
        `${vault}/notes/publish`,
        runtime,
        (p) => `{"path":${JSON.stringify(p)},"content":${content},"dryRun":false}`,
        (body) => envelope('service.note-transaction')(body) && created(body),
      );
    case 'account':
      return { key, label: ROW_LABELS.account, options: { method: 'GET', path: '/api/account', headers: pat }, verify: (body) => body.startsWith(`{"accountId":"${target.accountId}"`) };
    case 'grant':
      return {
        key,
        label: ROW_LABELS.grant,
        options: { method: 'POST', path: '/api/product/v1/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: tokenRequestBody(target) },
        verify: (body) => body.startsWith('{"access_token":"kgrp_'),
      };
  }
}

/** A run id: folders and idempotency keys of this run never meet another run's. */
export function newRunId(): string {
  return randomBytes(4).toString('hex');
}
