import { Hono } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { parseJsonBody, readBody } from '../http/body.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import { WORKSPACE_SURFACE } from '../invocation/surface.ts';
import { runNoteTransaction } from '../operations/note-write-operations.ts';
import { MAX_REST_BODY_BYTES } from '../rest/bind.ts';
import { sessionCookieName, type BaseUrl } from '../web/session.ts';
import { SESSION_TRANSACTIONS_PATH, bridgeRefusal, cookieValue } from './bridge.ts';

/** What the session-only transactions endpoint needs. */
export interface SessionTransactionsDependencies {
  pipeline: Pipeline;
  baseUrl: BaseUrl;
}

/**
 * `POST /api/workspace/transactions`: mixed atomic note transactions (write, delete, restore, move) of kgate's own
 * pages and in-page adapter, with the person's session (spec 4.5). The body and the answer are those of
 * `POST /api/dev/transactions`, with the Idempotency-Key header to apply. It is no tool: `tools/call` cannot reach it.
 * Any bearer credential is refused (OAuth and personal access tokens alike), and a session only with the WebMCP
 * header from this gateway's own origin (bridge.ts). It runs on the workspace surface: the person changes notes
 * directly, as on the trash page.
 */
export function sessionTransactions(deps: SessionTransactionsDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.post(SESSION_TRANSACTIONS_PATH, async (c) => {
    if (c.req.header('authorization') !== undefined) {
      throw new KgateError('unauthenticated', 'This endpoint accepts only the signed-in session of kgate’s pages; bearer tokens are refused here.');
    }
    const refused = bridgeRefusal({ header: (name) => c.req.header(name) }, new URL(deps.baseUrl()).origin);
    if (refused) throw new KgateError('forbidden', refused);
    const principal = await deps.pipeline.authenticateSession(WORKSPACE_SURFACE, cookieValue(c.req.header('cookie'), sessionCookieName(deps.baseUrl)));
    const body = await readBody(c.env?.incoming ?? c.req.raw.body, c.req.header('content-length'), MAX_REST_BODY_BYTES);
    const outcome = await deps.pipeline.invoke({
      surface: WORKSPACE_SURFACE,
      principal,
      operation: runNoteTransaction,
      readInput: () => parseJsonBody(body),
      idempotencyKey: { value: c.req.header('idempotency-key'), required: false },
    });
    if (!outcome.ok) throw outcome.error;
    if (outcome.replayed) c.header('Idempotent-Replayed', 'true');
    return c.json(outcome.output, 200, { 'Cache-Control': 'no-store' });
  });
  return app;
}
