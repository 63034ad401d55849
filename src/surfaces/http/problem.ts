import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import type { HttpEnv } from './context.ts';

/** HTTP status of each error code: the one place where the REST surface decides it. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  invalid_request: 400,
  invalid_path: 400,
  invalid_encoding: 400,
  payload_too_large: 413,
  headers_too_large: 431,
  request_timeout: 408,
  unauthenticated: 401,
  account_inactive: 403,
  plan_required: 403,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  mapping_read_only: 403,
  mcp_changes_disabled: 403,
  device_encrypted: 409,
  mapping_pull_only: 403,
  provider_disconnected: 409,
  provider_write_not_granted: 403,
  one_note_per_key: 400,
  provider_limit_reached: 503,
  provider_rate_limited: 503,
  provider_unavailable: 502,
  runtime_version_required: 400,
  runtime_version_unsupported: 400,
  principal_revoked: 401,
  installation_inactive: 403,
  product_retired: 403,
  organization_suspended: 403,
  runtime_paused: 403,
  workspace_not_assigned: 404,
  vault_not_granted: 404,
  vault_grant_read_only: 403,
  scope_not_found: 404,
  runtime_operations_exhausted: 429,
  client_audience_refused: 400,
  learner_specific_content: 422,
  group_too_small: 422,
  media_type_unsupported: 415,
  endpoint_url_refused: 422,
  media_duration_exceeded: 422,
  media_storage_exhausted: 403,
  intelligence_budget_unset: 403,
  intelligence_budget_exhausted: 429,
  intelligence_concurrency_exhausted: 429,
  model_unavailable: 503,
  model_timeout: 504,
  model_interrupted: 502,
  model_output_invalid: 502,
  pack_invalid: 422,
  target_not_found: 422,
  target_ambiguous: 422,
  vault_storage_exhausted: 403,
  conflict: 409,
  idempotency_key_in_flight: 409,
  stale_revision: 412,
  precondition_required: 428,
  idempotency_key_required: 400,
  idempotency_key_reused: 422,
  preview_required: 428,
  approval_required: 403,
  rate_limited: 429,
  monthly_limit_reached: 429,
  unavailable: 503,
  internal: 500,
};

/** An RFC 9457 problem document with our stable `code`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  requestId?: string;
  [extension: string]: unknown;
}

/**
 * The problem document of a code. `type` is a URN per code (RFC 9457 s3.1.1 allows any URI; a URN promises no page
 * that could go stale), `detail` is for humans, and extension members carry machine-readable details.
 */
export function problemDocument(
  code: ErrorCode,
  detail: string,
  requestId: string | undefined,
  extensions: Readonly<Record<string, unknown>> = {},
): Problem {
  return {
    ...extensions,
    type: `urn:kgate:problem:${code}`,
    title: code.replaceAll('_', ' '),
    status: HTTP_STATUS[code],
    code,
    detail,
    ...(requestId ? { requestId } : {}),
  };
}

/** Sends a problem document (see `problemDocument`). */
export function problemResponse(
  c: Context<HttpEnv>,
  code: ErrorCode,
  detail: string,
  extensions: Readonly<Record<string, unknown>> = {},
): Response {
  const body = problemDocument(code, detail, c.get('requestId'), extensions);
  return c.newResponse(JSON.stringify(body), HTTP_STATUS[code], { 'content-type': 'application/problem+json' });
}
