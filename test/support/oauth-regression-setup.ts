/**
 * Shared setup of the OAuth regression files (test/oauth-*-regressions.test.ts): a gateway per file on a clock the
 * tests can move, database probes (a code's state, row counts, MCP usage), and the assertions every refusal gets.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Clock } from '../../src/kernel/clock.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import type { McpReply } from './mcp-bearer-requests.ts';
import { baseOf, type FormResponse } from './oauth-flow.ts';

/** A clock the test moves: the wall clock plus an offset. */
export type MovableClock = Clock & { offsetMs: number };

/** A clock at the wall clock's time until a test sets `offsetMs`. */
export function movableClock(): MovableClock {
  return {
    offsetMs: 0,
    now() {
      return new Date(Date.now() + this.offsetMs);
    },
  };
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The gateway of one regression file and the database probes bound to it. */
export interface RegressionGateway {
  /** The running gateway; read it in hooks and tests, once the gateway has started. */
  readonly gateway: TestGateway;
  /** The public base URL (the issuer). */
  readonly base: string;
  /** The MCP resource, `${base}/api/mcp`. */
  readonly resource: string;
  /** The gateway's clock; a test that moves it sets it back to 0 in a `finally`. */
  readonly clock: MovableClock;
  /** The stored state of a code: consumed or not (undefined when no such code). */
  readonly codeConsumed: (code: string) => Promise<boolean | undefined>;
  /** The `n` column of the first row of a counting query, as a number. */
  readonly countRows: (sql: string, params: unknown[]) => Promise<number>;
  /** Operations the MCP allowance counted for an account (the month counters; every plan here reserves exactly). */
  readonly mcpUsage: (accountId: string) => Promise<number>;
}

/**
 * Starts a gateway on a movable clock before the enclosing `describe`'s tests and stops it after them. Call it
 * first in the `describe`, so that its `beforeAll` runs before the file's own hooks.
 */
export function useRegressionGateway(): RegressionGateway {
  const clock = movableClock();
  let started: { gateway: TestGateway; base: string; resource: string } | undefined;

  beforeAll(async () => {
    const gateway = await startTestGateway({ clock });
    const base = baseOf(gateway);
    started = { gateway, base, resource: `${base}/api/mcp` };
  });
  afterAll(() => started?.gateway.stop());

  const running = () => {
    if (!started) throw new Error('The regression gateway has not started: read it in a hook or a test, after useRegressionGateway()');
    return started;
  };
  const countRows = async (sql: string, params: unknown[]): Promise<number> => {
    const rows = await running().gateway.db.query<{ n: number | string }>(sql, params);
    return Number(rows[0]!.n);
  };

  return {
    get gateway() {
      return running().gateway;
    },
    get base() {
      return running().base;
    },
    get resource() {
      return running().resource;
    },
    clock,
    codeConsumed: async (code) => {
      const rows = await running().gateway.db.query<{ consumed: boolean }>(
        'SELECT consumed_at IS NOT NULL AS consumed FROM oauth_codes WHERE code_hash = $1',
        [sha256(code)],
      );
      return rows[0]?.consumed;
    },
    countRows,
    mcpUsage: (accountId) =>
      countRows("SELECT COALESCE(SUM(used), 0) AS n FROM usage_counters WHERE account_id = $1 AND surface = 'mcp' AND period = 'month'", [accountId]),
  };
}

/** An RFC 6749 / RFC 7591 error response: the status and error code, a description, JSON, never cached. */
export function expectOAuthError(response: FormResponse, status: number, error: string): void {
  expect({ status: response.status, error: response.body?.error }).toEqual({ status, error });
  expect(typeof response.body?.error_description).toBe('string');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
}

/** A 401 from /api/mcp for a token that authenticates nothing. */
export function expectUnauthorized(reply: McpReply): void {
  expect(reply.status).toBe(401);
  expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"');
  expect(reply.body?.error?.data?.code).toBe('unauthenticated');
}

/** GET /oauth/authorize as a browser, without following redirects. */
export async function authorizeRequest(url: URL, cookies?: { fetch: (url: URL) => Promise<Response> }): Promise<Response> {
  return cookies ? cookies.fetch(url) : fetch(url, { redirect: 'manual' });
}
