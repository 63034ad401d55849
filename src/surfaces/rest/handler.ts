import type { Context, Handler } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import { IdempotencyKeySchema, type IdempotencyService } from '../../domains/idempotency/index.ts';
import type { AuthenticatedPrincipal, TokensService } from '../../domains/tokens/index.ts';
import type { Reservation, UsageService } from '../../domains/usage/index.ts';
import { bearerToken } from '../http/auth.ts';
import type { HttpEnv } from '../http/context.ts';
import type { OperationServices } from '../operations/operation.ts';
import { runOperation } from '../operations/run-operation.ts';
import { bindInput, ifNoneMatchHits, prefersMarkdown } from './bind.ts';
import type { RestRoute } from './routes.ts';

/** What REST handlers need. */
export interface RestDependencies {
  tokens: TokensService;
  usage: UsageService;
  idempotency: IdempotencyService;
  services: OperationServices;
}

function setUsageHeaders(c: Context<HttpEnv>, reservation: Reservation): void {
  // draft-ietf-httpapi-ratelimit-headers (the widely deployed three-field form) for the minute window, plus the month.
  c.header('RateLimit-Limit', String(reservation.minute.limit));
  c.header('RateLimit-Remaining', String(reservation.minute.remaining));
  c.header('RateLimit-Reset', String(reservation.minute.resetSeconds));
  c.header('X-Monthly-Limit', String(reservation.month.limit));
  c.header('X-Monthly-Remaining', String(reservation.month.remaining));
}

/**
 * Resolves the principal and checks the plan on every request (spec 5 rule 2). Only personal access tokens reach
 * the Developer REST API; OAuth tokens for the MCP resource are refused here when they exist (spec 5 rule 1).
 */
async function authorize(c: Context<HttpEnv>, tokens: TokensService): Promise<AuthenticatedPrincipal> {
  const principal = await tokens.authenticate(bearerToken(c));
  c.set('principal', principal);
  if (!principal.entitlements.developerApi) {
    throw new KgateError('plan_required', 'The Developer REST API needs the Developer & Agent or the Team plan.');
  }
  return principal;
}

function idempotencyKeyOf(c: Context<HttpEnv>): string | undefined {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  const parsed = IdempotencyKeySchema.safeParse(key);
  if (!parsed.success) {
    throw new KgateError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { field: 'Idempotency-Key' });
  }
  return parsed.data;
}

/**
 * The handler of one REST route: authenticate, check the plan, reserve one operation of the REST allowance (only
 * now: rejections above consume nothing), bind and validate the input, run the operation under its idempotency
 * key, and render. Errors are thrown as KgateError and rendered by the app's error handler.
 */
export function restHandler(route: RestRoute, deps: RestDependencies): Handler<HttpEnv> {
  const { operation } = route;
  return async (c) => {
    const principal = await authorize(c, deps.tokens);
    const { restOperationsPerMinute, restOperationsPerMonth } = principal.entitlements;
    setUsageHeaders(c, await deps.usage.reserve(principal.accountId, 'rest', { perMinute: restOperationsPerMinute, perMonth: restOperationsPerMonth }));

    const raw = await bindInput(c, route);
    const parsed = operation.input.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
      throw new KgateError('invalid_request', `Invalid input: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`, {
        issues,
      });
    }
    const outcome = await runOperation(operation, { principal, services: deps.services }, parsed.data, {
      service: deps.idempotency,
      key: idempotencyKeyOf(c),
    });
    let output: unknown;
    if (outcome.replayed) {
      c.header('Idempotent-Replayed', 'true');
      if (outcome.outcome.kind === 'error') {
        throw new KgateError(outcome.outcome.code, outcome.outcome.message, outcome.outcome.details);
      }
      output = outcome.outcome.value;
    } else {
      output = outcome.output;
    }
    if (route.noteRead) return renderNote(c, output as { revision: string; content: string });
    return c.json(output as object, 200);
  };
}

function renderNote(c: Context<HttpEnv>, note: { revision: string; content: string }): Response {
  const etag = `"${note.revision}"`;
  c.header('ETag', etag);
  c.header('Vary', 'Accept');
  if (ifNoneMatchHits(c.req.header('if-none-match'), note.revision)) return c.body(null, 304);
  if (prefersMarkdown(c.req.header('accept'))) {
    return c.body(note.content, 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  }
  return c.json(note, 200);
}
