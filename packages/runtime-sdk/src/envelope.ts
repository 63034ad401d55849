/**
 * The V1 envelope of the Product Runtime (docs/runtime.md, "The V1 envelope") and the envelope itself as a type.
 * Every operation of both adapters answers one: the SDK never throws on an answer, only on a transport failure.
 */

/** The Product Runtime contract version this SDK speaks (spec 9.4): sent as `X-Service-Runtime-Version`. */
export const RUNTIME_CONTRACT_VERSION = 1;

/**
 * `ok`: the data is complete. `partial`: data is present but some of it could not be answered (`problems` says
 * which). `unavailable`: the capability is not available here (`data` is null, `problems` says why). `error`: the
 * call failed (`data` is null, `problems[0]` has the stable code).
 */
export type EnvelopeStatus = 'ok' | 'partial' | 'unavailable' | 'error';

/** What went wrong, or what is missing: a stable `code` to branch on, a `message` for people, and details. */
export interface RuntimeProblem {
  /** Stable code (docs/errors.md), e.g. `stale_revision`, `vault_not_granted`, `not_available`. */
  code: string;
  /** For people; may change between releases. */
  message: string;
  /** Machine-readable details, e.g. `reason` of an invalid path or `scope` of insufficient_scope. */
  details?: Record<string, unknown>;
}

/** One metered Product Runtime operation: the organization's monthly operation count after this call. */
export interface OperationReceipt {
  kind: 'service.product-runtime-operation';
  requestId: string;
  /** Calendar month in UTC, `YYYY-MM`. */
  month: string;
  used: number;
  /** The organization's `apiOperationsPerMonth`, or null when there is no cap. */
  limit: number | null;
}

/**
 * The usage receipt of a metered model call (spec 2.7): which model did the work, the tokens and images it used, and
 * what the call cost. A replay (the same Idempotency-Key again) carries the first call's receipt with `replayed: true`
 * and costs nothing more.
 */
export interface IntelligenceUsageReceipt {
  kind: 'service.product-intelligence-usage';
  /** The request id of the call that ran the model (a replay keeps the first call's). */
  requestId: string;
  /** The server's ledger row of the call. */
  ledgerId: string;
  /** What was metered, e.g. `education-generate`, `education-rubric-draft`. */
  meteredKind: string;
  model: { provider: string; chat: string | null; image: string | null };
  usage: { inputTokens: number; outputTokens: number; images: number };
  /** What was held back from the budget before the model was called (the request's bounded cost). */
  reservedMicrodollars: number;
  /** What the call cost, in millionths of a US dollar. */
  costMicrodollars: number;
  /** `settled`: a complete answer; `billable_failure`: the model did work but no answer came (charged). */
  outcome: 'settled' | 'billable_failure';
  /** The calendar month (UTC, `YYYY-MM`) the cost counts in. */
  month: string;
  /** True when this answer is the replay of an earlier call with the same key: no model call, no new cost. */
  replayed: boolean;
}

/**
 * The safety receipt of student guidance (after the usage receipt): which checks ran, whether the model's text was
 * withheld (then a fixed safe text was delivered instead) and why, under which policy. It names no text.
 */
export interface EducationSafetyReceipt {
  kind: 'service.education-safety';
  requestId: string;
  ledgerId: string;
  /** The version of the server's checks. */
  checksVersion: string;
  policy: {
    /** Your policy reference, as sent. */
    version: string;
    answerRevelation: 'forbidden';
    externalLinks: 'forbidden';
    directMessaging: 'forbidden';
    transcriptVisibleToTeacher: true;
  };
  untrustedInput: { learnerMessage: 'user-data'; priorTurns: number };
  checks: Array<{ check: string; ran: true; passed: boolean }>;
  withheld: boolean;
  /** Why the text was withheld, e.g. `answer_revealed`. */
  reasons: string[];
  delivered: 'model' | 'fallback';
  replayed: boolean;
}

/** What a call consumed or how it was checked. Refused calls carry none, or (a billable failure) its usage receipt. */
export type RuntimeReceipt = OperationReceipt | IntelligenceUsageReceipt | EducationSafetyReceipt;

/** The members every envelope has. */
interface EnvelopeBase {
  /** Always 1. */
  version: typeof RUNTIME_CONTRACT_VERSION;
  receipts: RuntimeReceipt[];
  problems: RuntimeProblem[];
  /** The server's `X-Request-Id` (hosted), or an id made by the local adapter. */
  requestId: string;
}

/** A complete answer. */
export interface OkEnvelope<K extends string, D> extends EnvelopeBase {
  kind: K;
  status: 'ok';
  data: D;
}

/** Data is present, but `problems` lists what could not be answered. */
export interface PartialEnvelope<K extends string, D> extends EnvelopeBase {
  kind: K;
  status: 'partial';
  data: D;
}

/** The capability is not available here: no data, never fabricated data. */
export interface UnavailableEnvelope<K extends string> extends EnvelopeBase {
  kind: K | 'service.problem';
  status: 'unavailable';
  data: null;
}

/** The call failed: `problems[0]` carries the stable code, the message and the details. */
export interface ErrorEnvelope extends EnvelopeBase {
  kind: 'service.problem';
  status: 'error';
  data: null;
  /** The HTTP status the server answered (hosted), or the one it would answer (local). Not part of the wire body. */
  httpStatus?: number;
}

/** The V1 envelope of data kind `K` carrying `D`. Narrow it on `status`. */
export type RuntimeEnvelope<K extends string, D> = OkEnvelope<K, D> | PartialEnvelope<K, D> | UnavailableEnvelope<K> | ErrorEnvelope;

/** Whether an envelope carries data (`ok` or `partial`). */
export function hasData<K extends string, D>(envelope: RuntimeEnvelope<K, D>): envelope is OkEnvelope<K, D> | PartialEnvelope<K, D> {
  return envelope.status === 'ok' || envelope.status === 'partial';
}

const STATUSES: ReadonlySet<string> = new Set(['ok', 'partial', 'unavailable', 'error']);

/** Whether `value` has the V1 envelope's shape (version 1, a kind, a known status, receipts and problems). */
export function isRuntimeEnvelope(value: unknown): value is RuntimeEnvelope<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    v.version === RUNTIME_CONTRACT_VERSION &&
    typeof v.kind === 'string' &&
    typeof v.status === 'string' &&
    STATUSES.has(v.status) &&
    'data' in v &&
    Array.isArray(v.receipts) &&
    Array.isArray(v.problems)
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Data of the vault operations. Shapes follow the Developer REST API (docs/api.md): the same notes, inventory pages,
// transactions and trash entries, under the Product Runtime's data kinds.
// ---------------------------------------------------------------------------------------------------------------

/** A note in an inventory page. */
export interface NoteSummary {
  /** Vault-relative path in canonical (NFC) form, ending in `.md`. */
  path: string;
  /** The first level-1 heading outside frontmatter and fenced code, else the file name without `.md`. */
  title: string;
  /** Hosted and local notes: equal to the content hash. */
  revision: string;
  /** UTF-8 bytes. */
  size: number;
  /** ISO 8601. */
  updatedAt: string;
}

/** `service.note-list`: one page of the inventory, in byte order of path, at most 1,000 notes. */
export interface NoteList {
  notes: NoteSummary[];
  /** Pass as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
  /** True when more notes follow. */
  truncated: boolean;
}

/** `service.note`: one whole note. */
export interface Note extends NoteSummary {
  content: string;
  /** `sha256:` + 64 lowercase hex digits of the UTF-8 bytes: the value to send as `expectedHash`. */
  contentHash: string;
  /** ISO 8601. */
  createdAt: string;
}

/** Creates or replaces a note. `expectedHash` is required to replace an existing note when applying. */
export interface WriteNoteAction {
  type: 'write-note';
  path: string;
  content: string;
  expectedHash?: string;
}

/** Moves a note to the recoverable trash. */
export interface DeleteNoteAction {
  type: 'delete-note';
  path: string;
  expectedHash?: string;
}

/** Brings a trashed note back to its original path. */
export interface RestoreNoteAction {
  type: 'restore-note';
  /** `trashId` of a trash entry. */
  trashId: string;
  /** The entry's `originalPath`. */
  path: string;
}

/** Moves or renames a note (the Developer REST API's fourth action; the local adapter refuses `rewriteLinks`). */
export interface MoveNoteAction {
  type: 'move-note';
  path: string;
  newPath: string;
  expectedHash?: string;
  rewriteLinks?: boolean;
}

/** One action of a note transaction (spec 2.4), at most 100 per transaction. */
export type NoteAction = WriteNoteAction | DeleteNoteAction | RestoreNoteAction | MoveNoteAction;

/** What an action does or would do; `conflict` appears only in previews, with a `problem`. */
export type ActionStatus = 'create' | 'update' | 'delete' | 'restore' | 'move' | 'no-op' | 'conflict';

/** The result of one action, or of one note a move's link rewrite changes (`rewrite-links`, after the actions). */
export interface ActionResult {
  /** The action's position in the request. */
  index: number;
  type: NoteAction['type'] | 'rewrite-links';
  path: string;
  newPath?: string;
  status: ActionStatus;
  /** The current content hash: send it as `expectedHash` when applying. Null when there is no note yet. */
  beforeRevision: string | null;
  /** The content hash after the action; null once deleted. */
  afterRevision: string | null;
  /** Delete: the trash entry written; restore: the entry restored. */
  trashId?: string;
  /** Previews: unified diff of the change. */
  diff?: string;
  diffTruncated?: boolean;
  linksRewritten?: number;
  linksSkipped?: number;
  /** Previews: why this action would fail if applied now. */
  problem?: { code: string; detail: string };
}

/** `service.note-transaction`: a previewed or applied transaction (also a single-note publication). */
export interface NoteTransaction {
  /** The mapping the vault resolves to (hosted), or `local` (local adapter). */
  mappingId: string;
  dryRun: boolean;
  /** True only when the changes were committed. */
  applied: boolean;
  actions: ActionResult[];
  /** Hosted previews: the receipt the server recorded for this preview (docs/proposals.md). */
  receipt?: {
    id: string;
    notesHash: string;
    againstHash: string;
    previewedAgainst: Array<{ path: string; revision: string | null }>;
  };
  /** Hosted applies: the preview receipt this apply matched, or null. */
  previewReceipt?: { id: string; previewedAt: string } | null;
}

/** A trash entry: never the content. */
export interface TrashEntry {
  trashId: string;
  originalPath: string;
  /** ISO 8601. */
  deletedAt: string;
  /** Hosted: the account id of who deleted the note. Local: `local`. */
  deletedBy: string;
  size: number;
  contentHash: string;
}

/** `service.trash-list`: restorable entries, newest first, content-free. */
export interface TrashList {
  entries: TrashEntry[];
  nextCursor: string | null;
  truncated: boolean;
}

export type * from './runtime-data.js';
