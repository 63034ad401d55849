/**
 * Data of the runtime operations under `/api/product/v1` (docs/runtime.md, "Routes"): context, capabilities,
 * workspace, domain composition, hosted vault, scopes, memory and the education projection, as the server presents
 * them. The server's OpenAPI document (`GET /api/product/v1/openapi.json`) is their machine-readable form.
 */

/** The credential scopes of an installation's service principal (spec 5, rule 6). */
export type RuntimeScope = 'intelligence.execute' | 'media.write' | 'media.read' | 'connections.manage' | 'connections.execute' | 'notes.publish';

/** Which adapter answered: the hosted Product Runtime, or a local folder of notes. */
export type RuntimeAdapterKind = 'hosted' | 'local';

/** What a logical-vault grant lets the installation do. */
export type VaultAccess = 'read' | 'publish';

/** A workspace role of the customer account. */
export type WorkspaceRole = 'owner' | 'admin' | 'editor' | 'viewer';

/** How changes to a vault are approved: directly, after a preview by the same credential, or by people. */
export type ApprovalPolicy = 'open' | 'preview-first' | 'people-approve';

/** The organization's brand profile as composed: every field present, null where the brand says nothing. */
export interface ComposedBrand {
  displayName: string;
  /** `#rrggbb`, or null. */
  colors: { primary: string | null; accent: string | null; background: string | null; text: string | null };
  logoUrl: string | null;
  supportUrl: string | null;
  tagline: string | null;
  welcomeText: string | null;
}

/** A product's navigation entry or onboarding step: it opens a capability (a CapabilityId). */
export interface ExperienceItem {
  id: string;
  capability: string;
}

/** The product experience pack as composed: navigation without hidden capabilities, terminology, onboarding. */
export interface ComposedExperience {
  theme: string | null;
  density: 'comfortable' | 'compact';
  navigation: Array<ExperienceItem & { label: string }>;
  /** kgate's terms to the product's words ("workspace" shown as "Classroom"). */
  terminology: Record<string, string>;
  onboarding: Array<ExperienceItem & { title: string }>;
}

/** A domain intelligence pack: domain semantics and the intelligence it offers (capability ids). */
export interface ComposedDomainPack {
  slug: string;
  title: string;
  entityKinds: Array<{ id: string; title: string }>;
  relationshipKinds: Array<{ id: string; title: string; from: string[]; to: string[] }>;
  deterministicIntelligence: string[];
  modelBackedWorkflows: string[];
  media: string[];
  connections: string[];
}

/** The product's presentation, applied after authorization: never authority. */
export interface ComposedPresentation {
  product: { name: string; slug: string };
  brand: ComposedBrand;
  experience: ComposedExperience;
  domainPack: ComposedDomainPack | null;
}

/** `service.runtime-context` from the hosted runtime: who is calling, as the server's records say. */
export interface HostedRuntimeContext {
  runtimeVersion: 1;
  adapter: 'hosted';
  organization: { id: string; slug: string; name: string };
  product: { id: string; slug: string; name: string };
  installation: { id: string };
  /** The service principal the token was issued to, with the token's current scopes. */
  principal: { id: string; name: string; scopes: RuntimeScope[] };
  presentation: ComposedPresentation;
}

/** `service.runtime-context` from the local adapter: the folder it works on, as one workspace with one vault. */
export interface LocalRuntimeContext {
  runtimeVersion: 1;
  adapter: 'local';
  /** Both ids are `local`; `name` is the folder's name. */
  workspace: { workspaceId: string; vaultId: string; name: string };
}

/** `service.runtime-context`. Narrow it on `adapter`. */
export type RuntimeContext = HostedRuntimeContext | LocalRuntimeContext;

/** What every capability of the catalogue says of itself. */
interface CapabilityBase {
  /** Stable id, e.g. `notes.publish`, `scopes.memory`, `education.projection`. */
  id: string;
  title: string;
  family: 'runtime' | 'hosted-vault' | 'scopes' | 'education' | 'media' | 'connections';
  /** The credential scope it needs; null when the vault grant or the chain alone decides. */
  scope: RuntimeScope | null;
  needsModel: boolean;
}

/** One capability and whether it is available here, and why not. */
export type RuntimeCapability =
  | (CapabilityBase & { availability: 'available' })
  | (CapabilityBase & {
      availability: 'unavailable';
      /** `not_built`: not on this server yet; `model_not_configured`; `hosted_only`: the local adapter does not have it. */
      reasonCode: 'not_built' | 'model_not_configured' | 'hosted_only';
      reason: string;
    });

/** `service.runtime-capabilities`. */
export interface RuntimeCapabilities {
  capabilities: RuntimeCapability[];
  /** Ids of the capabilities whose credential scope the access token carries (or that need none). */
  granted: string[];
}

/** A vault granted to the installation, with the access the grant gives. */
export interface GrantedVault {
  workspaceId: string;
  vaultId: string;
  name: string;
  access: VaultAccess;
  /** When the product last bound it with bindHostedVault (ISO 8601), or null. */
  boundAt: string | null;
}

/** `service.workspace`: an assigned workspace and the vaults granted in it. */
export interface RuntimeWorkspace {
  workspace: { id: string; name: string };
  vaults: GrantedVault[];
}

/** `service.domain-composition`: the domain pack, the experience and the brand, kept apart (spec 1.7). */
export interface DomainComposition {
  domainPack: ComposedDomainPack | null;
  experience: ComposedExperience;
  brand: ComposedBrand;
}

/** `service.hosted-vault`: the vault the product works on, and what it may do there. A binding grants nothing. */
export interface HostedVault {
  workspaceId: string;
  vaultId: string;
  name: string;
  access: VaultAccess;
  provider: string;
  readOnly: boolean;
  approvalPolicy: ApprovalPolicy;
  boundAt: string;
}

/** Who may read through a context scope: the lowest workspace role, and whether non-person callers may. */
export interface ScopeAudience {
  minimumRole: WorkspaceRole;
  agents: boolean;
}

/** A context scope: a named slice of a vault (path prefixes and tags). */
export interface ScopeSummary {
  scopeId: string;
  name: string;
  workspaceId: string;
  vaultId: string;
  pathPrefixes: string[];
  tags: string[];
}

/** `service.scope-list`: the scopes the installation may use, at most 1,000. */
export interface ScopeList {
  scopes: ScopeSummary[];
  truncated: boolean;
}

/** `service.scope-context`: one scope with its audience and the customer role the server resolved. */
export interface ScopeContext extends ScopeSummary {
  audience: ScopeAudience;
  customerRole: WorkspaceRole;
}

/** `service.scope-policy`: what the product may do through a scope now, every inherited rule applied. */
export interface ScopePolicy {
  scopeId: string;
  read: boolean;
  publish: boolean;
  grant: VaultAccess;
  credentialScopes: RuntimeScope[];
  approvalPolicy: ApprovalPolicy;
  /** Applying needs a matching preview by the same credential first. */
  previewRequired: boolean;
  /** Why publishing is not allowed, when it is not. */
  reasons: Array<{ code: string; message: string }>;
}

/** Where a knowledge record comes from, in the note as it is now. */
export interface KnowledgeEvidence {
  path: string;
  revision: string;
  /** First and last line, 1-based, inclusive. */
  lines: [number, number];
  blockId?: string;
}

/** A decision: confirmed, rejected or superseded by a person, or a candidate no person reviewed. */
export interface Decision {
  id: string;
  title: string;
  status: 'confirmed' | 'superseded' | 'rejected' | 'candidate';
  candidate: boolean;
  statusInNote: 'proposed' | 'accepted' | 'rejected' | 'superseded' | 'deprecated';
  subject: string | null;
  decided: string | null;
  validFrom: string | null;
  validUntil: string | null;
  supersedes: string[];
  review: { verdict: 'confirmed' | 'rejected' | 'superseded'; reviewedAt: string; comment: string; supersededBy: string | null } | null;
  knownFrom: string | null;
  evidence: KnowledgeEvidence;
}

/** An open question. */
export interface Question {
  id: string;
  text: string;
  answered: boolean;
  knownFrom: string | null;
  evidence: KnowledgeEvidence;
}

/** An open commitment. */
export interface Commitment {
  id: string;
  text: string;
  closed: boolean;
  owner: string | null;
  due: string | null;
  knownFrom: string | null;
  evidence: KnowledgeEvidence;
}

/** `service.scope-intelligence`: knowledge compiled from a scope's notes, bounded per kind. */
export interface ScopeIntelligence {
  scopeId: string;
  decisions: Decision[];
  questions: Question[];
  commitments: Commitment[];
  truncated: { decisions: boolean; questions: boolean; commitments: boolean };
}

/** A shared memory entry or candidate. */
export interface MemoryEntry {
  id: string;
  scopeId: string;
  title: string;
  body: string;
  evidence: Array<{ path: string; note?: string }>;
  status: 'candidate' | 'accepted' | 'rejected';
  createdAt: string;
  decidedAt: string | null;
}

/** `service.scope-memory`: accepted memory only, newest first. */
export interface ScopeMemory {
  entries: MemoryEntry[];
  nextCursor: string | null;
  truncated: boolean;
}

/** Input of createSharedMemoryCandidate: a title (1 to 200), a body (1 to 20,000), at most 20 evidence paths. */
export interface SharedMemoryCandidateInput {
  title: string;
  body: string;
  evidence?: Array<{ path: string; note?: string }>;
}

/** `service.memory-candidate`: the stored candidate; only a person with write access accepts or rejects it. */
export type MemoryCandidate = MemoryEntry;

/**
 * Input of the bounded education intelligence projection (spec 4.7): portable education entities and
 * provenance-backed relationships. The spec does not show its field names; the server's OpenAPI document does.
 */
export type EducationProjectionInput = Record<string, unknown>;

/**
 * `service.education-projection`: deterministic evaluation, finding identity and decision-signal handoff.
 * Read-only: it creates no trusted memory and runs no governed mutation.
 */
export type EducationProjection = Record<string, unknown>;
