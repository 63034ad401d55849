import { KgateError } from '../../kernel/errors.ts';
import type { ErrorCode } from '../../kernel/error-codes.ts';

// The model port (issue 21): an OpenAI-compatible model behind one interface, the ledger that reserves, settles and
// replays what its calls cost, and the usage receipt every metered answer carries. docs/models.md is the contract.

/** One message of a chat completion. Untrusted text (a learner's message, prior turns) is only ever `user` content. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A chat completion request, bounded: the reservation is computed from its messages and `maxOutputTokens`. */
export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** The most tokens the model may produce (sent as max_tokens): what bounds the output side of the reservation. */
  maxOutputTokens: number;
  /** Ask for one JSON object (response_format json_object); the caller still validates it against its schema. */
  json?: boolean;
  temperature?: number;
  /** Aborts the upstream request (a client that went away, a deadline). */
  signal?: AbortSignal;
}

/** Tokens of one completion as the model reported them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A finished chat completion. */
export interface ChatCompletion {
  text: string;
  usage: TokenUsage;
  /** The model that answered, as the provider named it (may differ from the configured name, e.g. a dated version). */
  model: string;
  finishReason: string;
  /** The provider's request id (`x-request-id`), when it sent one. */
  providerRequestId?: string;
}

/** One event of a streamed completion: text as it comes, then the completion with its usage. */
export type ChatStreamEvent = { kind: 'delta'; text: string } | { kind: 'done'; completion: ChatCompletion };

/** The image formats kgate accepts from a model, each checked by its signature. */
export type ImageFormat = 'png' | 'jpeg' | 'webp';

/** An image generation request. */
export interface ImageRequest {
  prompt: string;
  size: '1024x1024' | '1536x1024' | '1024x1536';
  format: ImageFormat;
  signal?: AbortSignal;
}

/** Generated image bytes, with the format their signature says they are. */
export interface GeneratedImage {
  bytes: Uint8Array;
  format: ImageFormat;
  model: string;
  providerRequestId?: string;
}

/** Prices in microdollars (1,000,000 = one US dollar): per input token, per output token, per image. Fractions allowed. */
export interface PriceTable {
  inputMicrodollarsPerToken: number;
  outputMicrodollarsPerToken: number;
  imageMicrodollars: number;
}

/** Who the model is, as receipts name it. */
export interface ModelIdentity {
  /** `openai-compatible` and the configured base URL's host, never its key. */
  provider: string;
  chatModel: string;
  imageModel: string | null;
}

/**
 * The model port. Every call is bounded (timeouts, response body size) and retried only where the request was
 * certainly not accepted (it never reached the provider, or the provider refused it with 429 or 503 before doing
 * any work). Failures are ModelError.
 */
export interface ModelPort {
  readonly identity: ModelIdentity;
  readonly prices: PriceTable;
  chat(request: ChatRequest): Promise<ChatCompletion>;
  /** A streamed completion; the request is sent when iteration starts, and `return()` aborts it upstream. */
  chatStream(request: ChatRequest): AsyncIterable<ChatStreamEvent>;
  /** Fails with `unavailable` when no image model is configured. */
  image(request: ImageRequest): Promise<GeneratedImage>;
}

/**
 * Whether the provider accepted a failed request, which decides what the ledger does with its reservation (spec 8
 * rule 4): `no` (certainly not accepted: not sent, or refused before any work) releases it; `yes` (accepted, then
 * interrupted, or an answer that fails its schema) and `unknown` (a timeout, a connection lost after sending) are
 * billable failures.
 */
export type Acceptance = 'no' | 'yes' | 'unknown';

/** A failed model call: a stable code for the caller, and what the ledger needs to know. */
export class ModelError extends KgateError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly accepted: Acceptance,
    /** Usage the provider reported before failing, when it did. */
    readonly usage?: TokenUsage,
    details?: Readonly<Record<string, unknown>>,
  ) {
    super(code, message, details);
  }
}

/** Upper bounds on what one metered request may use; the reservation is their cost at the price table. */
export interface CostBound {
  inputTokens: number;
  outputTokens: number;
  images: number;
}

/** What one metered request actually used. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  images: number;
}

/** The metered kinds of the education endpoints (spec 4.7); each names its ledger rows and receipts. */
export const METERED_KINDS = [
  'education-generate',
  'education-generate-image',
  'education-student-guidance',
  'education-practice-review',
  'education-assessment-draft',
  'education-quality-review',
  'education-rubric-draft',
] as const;
/** See METERED_KINDS. */
export type MeteredKind = (typeof METERED_KINDS)[number];

/**
 * The usage receipt of a metered answer (spec 2.7, `service.product-intelligence-usage`), in the envelope's
 * `receipts` beside the operation receipt. A replay carries the stored receipt with `replayed: true`.
 */
export interface UsageReceipt {
  kind: 'service.product-intelligence-usage';
  /** The HTTP request id of the call that ran the model (a replay keeps the original's). */
  requestId: string;
  /** The ledger row. */
  ledgerId: string;
  meteredKind: MeteredKind;
  model: { provider: string; chat: string | null; image: string | null };
  usage: ModelUsage;
  reservedMicrodollars: number;
  costMicrodollars: number;
  /** `settled`: a complete answer; `billable_failure`: accepted but not completed, charged. */
  outcome: 'settled' | 'billable_failure';
  /** The calendar month (UTC, `YYYY-MM`) the cost counts in. */
  month: string;
  replayed: boolean;
}

/** The organization's and installation's standing, for a metered call (read from server records on every call). */
export interface MeteredCaller {
  organizationId: string;
  installationId: string;
  principalId: string;
  /** intelligenceBudgetMicrodollarsMonthly; undefined or 0 fails closed. */
  budgetMicrodollars: number | undefined;
  /** The installation's sublimit, or null for none. */
  sublimitMicrodollars: number | null;
  /** maxConcurrentIntelligence; undefined: no ceiling. */
  maxConcurrent: number | undefined;
}

/** What a metered piece of work runs with: the model, metered (dispatch and usage are recorded), and the call's signal. */
export interface Meter {
  readonly model: ModelPort;
  readonly signal: AbortSignal;
}

/** One metered request: identified by its key, bounded by `bound`, and run once whatever the retries. */
export interface MeteredRequest<T extends Record<string, unknown>> {
  caller: MeteredCaller;
  kind: MeteredKind;
  /** The Idempotency-Key, per service principal. */
  key: string;
  /** sha256 of the operation and its input: the same key with another request is idempotency_key_reused. */
  fingerprint: string;
  requestId: string;
  bound: CostBound;
  /** The call's signal (the client's connection); aborting it after dispatch is a billable interruption. */
  signal: AbortSignal;
  /** The work: model calls through `meter.model` only. Its value is stored for replay; it must be JSON. */
  work: (meter: Meter) => Promise<T>;
  /**
   * Told the usage receipt of the request once it is known: settled, a billable failure (before the error is thrown,
   * so that a failed answer still carries what it cost), or replayed. Not called when nothing was charged.
   */
  onReceipt?: (receipt: UsageReceipt) => void;
}

/** A metered request's answer: fresh, or the stored one of an earlier identical request (no model call). */
export interface MeteredResult<T> {
  data: T;
  receipt: UsageReceipt;
  replayed: boolean;
}

/** A month of an organization's intelligence spending, for its admins' page and the operator. */
export interface IntelligenceMonth {
  month: string;
  budgetMicrodollars: number | null;
  /** Reserved for requests still running. */
  reservedMicrodollars: number;
  settledMicrodollars: number;
  billableFailureMicrodollars: number;
  requests: { settled: number; billableFailures: number; released: number; running: number };
}
