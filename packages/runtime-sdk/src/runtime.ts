/**
 * The Product Runtime as a product sees it (spec 4.7, "SDK operations"): one interface, two adapters. The hosted
 * adapter (createHostedRuntime) speaks the V1 wire of docs/runtime.md; the local adapter (createLocalRuntime) works on
 * a folder of Markdown notes and never uploads. Every operation answers a V1 envelope; what an adapter cannot do is
 * an `unavailable` envelope, never fabricated data.
 */
import type {
  NoteAction,
  Note,
  NoteList,
  NoteTransaction,
  RuntimeEnvelope,
  TrashList,
} from './envelope.js';
import type {
  DomainComposition,
  EducationProjection,
  EducationProjectionInput,
  HostedVault,
  MemoryCandidate,
  RuntimeCapabilities,
  RuntimeContext,
  RuntimeWorkspace,
  ScopeContext,
  ScopeIntelligence,
  ScopeList,
  ScopeMemory,
  ScopePolicy,
  SharedMemoryCandidateInput,
} from './runtime-data.js';
import type {
  AssessmentDraft,
  AssessmentDraftInput,
  EducationGeneration,
  EducationImage,
  GenerationInput,
  GenerationStreamEvent,
  ImageInput,
  ListRubricsParams,
  PracticeReview,
  PracticeReviewInput,
  QualityReview,
  QualityReviewInput,
  Rubric,
  RubricDraft,
  RubricDraftInput,
  RubricList,
  StudentGuidance,
  StudentGuidanceInput,
} from './education-data.js';

/** A logical vault of an assigned workspace, optionally narrowed to one of its context scopes. */
export interface VaultRef {
  workspaceId: string;
  vaultId: string;
  /**
   * Narrows the call to one context scope of the vault (header `X-Service-Context-Scope`): a listing answers only the
   * scope's slice, and a read or change outside it is `not_found`. The local adapter has no scopes and refuses it.
   */
  scopeId?: string;
}

/** Per-call options. */
export interface CallOptions {
  /** Cancels the call (with the adapter's own timeout, whichever comes first). */
  signal?: AbortSignal;
  /**
   * Hosted applies and metered (model-backed) calls: the `Idempotency-Key` to send. By default the SDK makes one per
   * call (a random UUID) and reuses it across that call's retries; pass your own, kept before the call, to make a
   * retry after a crash replay the first answer instead of applying twice or paying for a second model call. A
   * RuntimeTransportError names the key it sent (`idempotencyKey`).
   */
  idempotencyKey?: string;
}

/** Per-call options of a streamed call. */
export interface StreamCallOptions extends CallOptions {
  /** The longest line of the stream accepted, in bytes (RuntimeTransportError `response_too_large` beyond). Default 1 MiB. */
  maxLineBytes?: number;
}

/** listNotes: one page of the inventory. */
export interface ListNotesParams extends VaultRef {
  /** Only paths that start with this. */
  prefix?: string;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** 1 to 1,000; default 1,000. */
  limit?: number;
}

/** readNote. */
export interface ReadNoteParams extends VaultRef {
  path: string;
}

/** publishNote: one note written as a one-action transaction. */
export interface PublishNoteParams extends VaultRef {
  path: string;
  /** The whole new Markdown content. */
  content: string;
  /** Required to replace an existing note when applying: its `contentHash`, or `beforeRevision` of the preview. */
  expectedHash?: string;
  /** true (the default): preview only. false: apply. */
  dryRun?: boolean;
}

/** previewTransaction and applyTransaction: up to 100 actions, atomically. */
export interface TransactionParams extends VaultRef {
  actions: NoteAction[];
}

/** listTrash. */
export interface ListTrashParams extends VaultRef {
  cursor?: string;
  /** 1 to 1,000; default 1,000. */
  limit?: number;
}

/** getScopeMemory. */
export interface ScopeMemoryParams {
  cursor?: string;
  limit?: number;
}

/** The operations every adapter answers. */
export interface ProductRuntime {
  /** Which adapter this is. */
  readonly adapter: 'hosted' | 'local';

  /**
   * Who is calling. Hosted: the organization, product, installation and service principal behind the token, with its
   * scopes and the product's presentation (getWorkspace lists the vaults of an assigned workspace). Local: the folder.
   */
  getRuntimeContext(options?: CallOptions): Promise<RuntimeEnvelope<'service.runtime-context', RuntimeContext>>;
  /** Which SDK operations are available here, and why not. */
  getCapabilities(options?: CallOptions): Promise<RuntimeEnvelope<'service.runtime-capabilities', RuntimeCapabilities>>;
  /** One assigned workspace and the vaults granted in it. Hosted only. */
  getWorkspace(workspaceId: string, options?: CallOptions): Promise<RuntimeEnvelope<'service.workspace', RuntimeWorkspace>>;
  /** The product's domain intelligence pack and presentation. Hosted only. */
  getDomainComposition(options?: CallOptions): Promise<RuntimeEnvelope<'service.domain-composition', DomainComposition>>;

  /** A bounded page of notes, in byte order of path. Needs a read grant. */
  listNotes(params: ListNotesParams, options?: CallOptions): Promise<RuntimeEnvelope<'service.note-list', NoteList>>;
  /** One note with content, contentHash and revision. Needs a read grant. */
  readNote(params: ReadNoteParams, options?: CallOptions): Promise<RuntimeEnvelope<'service.note', Note>>;
  /**
   * Publishes one note: a preview by default (`dryRun` true), then an apply with `dryRun: false` and the current hash
   * of an existing note. Applying needs `notes.publish` and a publish grant (hosted).
   */
  publishNote(params: PublishNoteParams, options?: CallOptions): Promise<RuntimeEnvelope<'service.note-transaction', NoteTransaction>>;
  /** Previews a transaction: per action its status, beforeRevision and diff; nothing changes. */
  previewTransaction(params: TransactionParams, options?: CallOptions): Promise<RuntimeEnvelope<'service.note-transaction', NoteTransaction>>;
  /** Applies a transaction atomically: every existing note touched needs its current hash. */
  applyTransaction(params: TransactionParams, options?: CallOptions): Promise<RuntimeEnvelope<'service.note-transaction', NoteTransaction>>;
  /** Restorable trash entries, newest first, without content. */
  listTrash(params: ListTrashParams, options?: CallOptions): Promise<RuntimeEnvelope<'service.trash-list', TrashList>>;

  /** Checks the chain for a vault and records it as the product's hosted vault. Grants nothing. Hosted only. */
  bindHostedVault(params: { workspaceId: string; vaultId: string }, options?: CallOptions): Promise<RuntimeEnvelope<'service.hosted-vault', HostedVault>>;
  /** The context scopes the installation may use, optionally of one workspace. Hosted only. */
  listAvailableScopes(params?: { workspaceId?: string }, options?: CallOptions): Promise<RuntimeEnvelope<'service.scope-list', ScopeList>>;
  /** A scope with the workspace and vault grant it resolves to. Hosted only. */
  getScopeContext(scopeId: string, options?: CallOptions): Promise<RuntimeEnvelope<'service.scope-context', ScopeContext>>;
  /** What the product may do through a scope now, every inherited rule applied (grant, scopes, mapping, role). Hosted only. */
  getEffectiveScopePolicy(scopeId: string, options?: CallOptions): Promise<RuntimeEnvelope<'service.scope-policy', ScopePolicy>>;
  /** Decisions, open questions and open commitments compiled from a scope's notes, bounded. Hosted only. */
  getScopeIntelligence(scopeId: string, options?: CallOptions): Promise<RuntimeEnvelope<'service.scope-intelligence', ScopeIntelligence>>;
  /** Accepted shared memory of a scope (never candidates). Hosted only. */
  getScopeMemory(scopeId: string, params?: ScopeMemoryParams, options?: CallOptions): Promise<RuntimeEnvelope<'service.scope-memory', ScopeMemory>>;
  /**
   * Proposes shared memory for a scope; only a person with write access accepts it. Sent with an Idempotency-Key, so
   * a retry never stores it twice. Hosted only.
   */
  createSharedMemoryCandidate(
    scopeId: string,
    input: SharedMemoryCandidateInput,
    options?: CallOptions,
  ): Promise<RuntimeEnvelope<'service.memory-candidate', MemoryCandidate>>;

  /**
   * The education projection (spec 4.7: the education projection method and the bounded education intelligence
   * projection are one server operation, `POST /api/product/v1/intelligence/education/projection`, needing
   * `intelligence.execute`): deterministic evaluation of portable education entities and provenance-backed
   * relationships; read-only. Hosted: the server's answer; `unavailable` with code `not_available` when the server
   * has no such route (getCapabilities lists it as `not_built`). Local: `unavailable`.
   */
  projectEducation(input: EducationProjectionInput, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-projection', EducationProjection>>;

  // Model-backed education operations (spec 4.7; docs/education.md). Each needs `intelligence.execute` and an
  // intelligence budget on the organization; each is metered: sent with an Idempotency-Key (the same on its retries),
  // answered with the operation receipt and the usage receipt (`service.product-intelligence-usage`) in `receipts`.
  // A second call with the same key and request replays the stored answer (or billable failure) at no cost; the same
  // key with another request is `idempotency_key_reused`. Hosted only; without a configured model the server answers
  // `unavailable`.

  /** A proposed teacher-facing Markdown draft for one workflow, as one JSON answer (`education-generate`). */
  generateEducationContent(
    input: GenerationInput,
    options?: CallOptions,
  ): Promise<RuntimeEnvelope<'service.education-generation', EducationGeneration>>;
  /**
   * The same generation as a stream (`Accept: application/x-ndjson`, spec 6.3): `ready`, then `delta`s of text as the
   * model writes, then `done` carrying the envelope generateEducationContent would have answered. A call refused
   * before its stream started (scope, budget, validation, a replayed failure) is one `done` event with that envelope.
   * Nothing is sent until you iterate; breaking out of the loop, or aborting `signal`, closes the connection, which
   * cancels the model request on the server (then charged as a billable failure if the model had accepted it). A
   * retry with the same key replays a settled draft (`ready` with `replayed: true`, the whole text as one delta,
   * `done`) without a second model call. Throws RuntimeTransportError (`aborted`, `stream_interrupted`, …) with the
   * call's `idempotencyKey`. Each line is bounded (`maxLineBytes`). The local adapter yields one `unavailable` done.
   */
  streamEducationContent(
    input: GenerationInput,
    options?: StreamCallOptions,
  ): AsyncIterable<GenerationStreamEvent<'service.education-generation', EducationGeneration>>;
  /** Practice proposals for two to five review sessions from aggregate evidence (`education-practice-review`). */
  reviewPractice(input: PracticeReviewInput, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-practice-review', PracticeReview>>;
  /** A structured assessment draft, kept as proposed (`education-assessment-draft`). */
  draftAssessment(input: AssessmentDraftInput, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-assessment-draft', AssessmentDraft>>;
  /** Advice on one artifact revision (`education-quality-review`). */
  reviewQuality(input: QualityReviewInput, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-quality-review', QualityReview>>;
  /** A weighted analytic rubric, stored as the proposed next version of a new or given rubric (`education-rubric-draft`). */
  draftRubric(input: RubricDraftInput, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-rubric-draft', RubricDraft>>;
  /** The installation's rubrics, most recently drafted first. Not metered by the model. */
  listRubrics(params?: ListRubricsParams, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-rubrics', RubricList>>;
  /** One rubric with its latest versions. Not metered by the model. */
  getRubric(rubricId: string, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-rubric', Rubric>>;
  /** One classroom image from a visual brief, with alt text (`education-generate-image`: a chat call and an image). */
  generateImage(input: ImageInput, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-image', EducationImage>>;
  /**
   * One kind of guidance for a learner on a live activity (`education-student-guidance`). `receipts` holds the safety
   * receipt (`service.education-safety`) after the usage receipt.
   */
  studentGuidance(input: StudentGuidanceInput, options?: CallOptions): Promise<RuntimeEnvelope<'service.education-student-guidance', StudentGuidance>>;
}
