/**
 * The catalogue of stable error codes. Clients branch on these, never on message text (spec 7.1), so a code,
 * once published, keeps its meaning. Each surface maps a code to its own wire form (HTTP status + problem JSON,
 * JSON-RPC error, MCP `isError` result); `docs/errors.md` is checked against this table by a test.
 */
export const ERROR_CODES = {
  invalid_request: 'The request is malformed or fails validation.',
  invalid_path: 'A note path is not a valid vault-relative Markdown path.',
  invalid_encoding: 'The request body is not valid UTF-8.',
  payload_too_large: 'The request body exceeds the size limit.',
  headers_too_large: 'The request head (request line and headers) exceeds the size limit.',
  request_timeout: 'The request did not arrive in time; the connection is closed.',
  unauthenticated: 'No credential, or a credential that is unknown, malformed, expired, rotated or revoked.',
  account_inactive: 'The account behind the credential is suspended.',
  plan_required: "The account's plan does not include this capability.",
  forbidden: 'The principal is known but lacks the permission for this action.',
  insufficient_scope: "The OAuth access token lacks the scope this call needs (named in details and in WWW-Authenticate).",
  not_found: 'The resource does not exist or the caller may not see it (the two look the same).',
  mapping_read_only: 'The mapping is read-only or pull-only; it accepts no writes.',
  mcp_changes_disabled: 'The owner has not switched on "Allow hosted MCP note changes" for this mapping.',
  device_encrypted: 'Note bodies of this mapping are encrypted with a device-held key the server never has.',
  conflict: 'The request conflicts with the current state of a resource.',
  idempotency_key_in_flight: 'A request with the same idempotency key is still running.',
  stale_revision: 'An expected hash or revision does not match the current one; nothing was overwritten.',
  precondition_required: "Changing an existing note needs its current hash (expectedHash or If-Match).",
  idempotency_key_required: 'Applying a change needs an Idempotency-Key header.',
  idempotency_key_reused: 'The idempotency key was already used with a different request.',
  preview_required: "The mapping's approval policy needs a matching preview, by the same credential, before this apply.",
  approval_required: "The mapping's approval policy lets agents only propose changes (propose_action); a person approves them.",
  rate_limited: 'The per-minute allowance is used up; retry after the time in Retry-After.',
  monthly_limit_reached: 'The monthly allowance is used up; it renews at the start of next month (UTC).',
  unavailable: 'A capability or dependency is not available right now.',
  internal: 'An unexpected server error; the request id identifies it in the logs.',
} as const;

/** A stable, documented error code. */
export type ErrorCode = keyof typeof ERROR_CODES;
