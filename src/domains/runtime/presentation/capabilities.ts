/**
 * The capability catalogue of the Product Runtime (spec 1.8, 4.7): every capability a product may ask about, the
 * credential scope it needs, and whether this server offers it now. Availability is computed from facts the caller
 * passes in (what this server has built, whether a model is configured), never assumed: a capability that is not
 * here answers `unavailable` with its reason (spec 1.8: explicit unavailability, not fabricated data).
 */
import { z } from 'zod';
import { RuntimeScopeSchema } from '../contract.ts';
import type { RuntimeScope } from '../contract.ts';

/** The families capabilities are grouped in, as a product's navigation would show them. */
export const CapabilityFamilySchema = z.enum(['runtime', 'hosted-vault', 'scopes', 'education', 'media', 'connections']);
/** See CapabilityFamilySchema. */
export type CapabilityFamily = z.infer<typeof CapabilityFamilySchema>;

/** One capability of the catalogue. */
export interface Capability {
  /** Stable id, used by experience packs (navigation, onboarding, visibility) and in getCapabilities. */
  readonly id: CapabilityId;
  /** What a person sees. */
  readonly title: string;
  readonly family: CapabilityFamily;
  /** The credential scope it needs (spec 5 rule 6); null when a vault grant or the chain alone decides. */
  readonly scope: RuntimeScope | null;
  /** Whether it runs on the configured model: without one it is unavailable even when built. */
  readonly needsModel: boolean;
}

/** What the catalogue says of each capability, before its id is attached. */
type CapabilityTraits = Omit<Capability, 'id'>;

const traits = (title: string, family: CapabilityFamily, scope: RuntimeScope | null, needsModel = false): CapabilityTraits => ({
  title,
  family,
  scope,
  needsModel,
});

const CATALOGUE = {
  'runtime.context': traits('Runtime context', 'runtime', null),
  'runtime.capabilities': traits('Capabilities', 'runtime', null),
  'runtime.workspace': traits('Workspace', 'runtime', null),
  'runtime.domain-composition': traits('Domain composition', 'runtime', null),
  'vault.bind': traits('Bind a hosted vault', 'hosted-vault', null),
  'notes.list': traits('List notes', 'hosted-vault', null),
  'notes.read': traits('Read a note', 'hosted-vault', null),
  'notes.publish': traits('Publish a note', 'hosted-vault', 'notes.publish'),
  // A preview needs only a read grant; applying needs notes.publish and a publish grant (docs/runtime.md).
  'notes.transactions': traits('Note transactions', 'hosted-vault', 'notes.publish'),
  'notes.trash': traits('Trash', 'hosted-vault', null),
  'scopes.list': traits('Available scopes', 'scopes', null),
  'scopes.context': traits('Scope context', 'scopes', null),
  'scopes.policy': traits('Effective scope policy', 'scopes', null),
  'scopes.intelligence': traits('Scope intelligence', 'scopes', null),
  'scopes.memory': traits('Scope memory', 'scopes', null),
  'memory.candidates': traits('Shared memory candidates', 'scopes', null),
  'education.projection': traits('Education projection', 'education', 'intelligence.execute'),
  'education.artifacts.recommend': traits('Artifact recommendations', 'education', 'intelligence.execute'),
  'education.standards.crosswalk': traits('Standards crosswalk', 'education', 'intelligence.execute'),
  'education.generate': traits('Generation', 'education', 'intelligence.execute', true),
  'education.generate-image': traits('Image generation', 'education', 'intelligence.execute', true),
  'education.student-guidance': traits('Learner guidance', 'education', 'intelligence.execute', true),
  'education.practice-review': traits('Practice review', 'education', 'intelligence.execute', true),
  'education.assessment-draft': traits('Assessment drafting', 'education', 'intelligence.execute', true),
  'education.quality-review': traits('Quality review', 'education', 'intelligence.execute', true),
  'education.rubric-draft': traits('Rubric drafting', 'education', 'intelligence.execute', true),
  'media.audio.store': traits('Store private audio', 'media', 'media.write'),
  'media.audio.read': traits('Play private audio', 'media', 'media.read'),
  'connections.manage': traits('Provider connections', 'connections', 'connections.manage'),
  'connections.drive': traits('Drive round trips', 'connections', 'connections.execute'),
  'connections.classroom': traits('Classroom round trips', 'connections', 'connections.execute'),
} as const satisfies Record<string, CapabilityTraits>;

/** A capability id the catalogue knows. */
export type CapabilityId = keyof typeof CATALOGUE;

/** Every capability id, in catalogue order. */
export const CAPABILITY_IDS = Object.freeze(Object.keys(CATALOGUE) as CapabilityId[]);

/** The catalogue, in the order getCapabilities lists it. */
export const CAPABILITIES: readonly Capability[] = Object.freeze(
  CAPABILITY_IDS.map((id) => Object.freeze({ id, ...CATALOGUE[id] })),
);

const BY_ID: ReadonlyMap<string, Capability> = new Map(CAPABILITIES.map((capability) => [capability.id, capability]));

/** A capability id the catalogue knows; anything else is refused. */
export const CapabilityIdSchema = z.enum(CAPABILITY_IDS as [CapabilityId, ...CapabilityId[]], {
  error: 'must be a capability id the catalogue knows',
});

/** True when `id` is a capability id the catalogue knows. */
export function isCapabilityId(id: string): id is CapabilityId {
  return BY_ID.has(id);
}

/** The catalogue's capability of that id, or undefined. */
export function capabilityOf(id: string): Capability | undefined {
  return BY_ID.get(id);
}

/**
 * What this server has built: the runtime operations, the hosted vault routes, the scope operations, education
 * (model-backed capabilities are available only with a configured model), media and delegated connections. The gateway
 * reports as built what its product routes serve (surfaces/product/routes.ts, runtimeCatalogueOf); a test keeps this
 * list equal to that, so the two cannot disagree.
 */
export const BUILT_CAPABILITIES: ReadonlySet<CapabilityId> = new Set<CapabilityId>([
  'runtime.context',
  'runtime.capabilities',
  'runtime.workspace',
  'runtime.domain-composition',
  'vault.bind',
  'notes.list',
  'notes.read',
  'notes.publish',
  'notes.transactions',
  'notes.trash',
  'scopes.list',
  'scopes.context',
  'scopes.policy',
  'scopes.intelligence',
  'scopes.memory',
  'memory.candidates',
  'education.projection',
  'education.artifacts.recommend',
  'education.standards.crosswalk',
  'education.generate',
  'education.practice-review',
  'education.assessment-draft',
  'education.quality-review',
  'education.rubric-draft',
  'education.generate-image',
  'education.student-guidance',
  'media.audio.store',
  'media.audio.read',
  'connections.manage',
  'connections.drive',
  'connections.classroom',
]);

/** The facts availability is computed from; the caller finds them (configuration, BUILT_CAPABILITIES). */
export interface CapabilityFacts {
  /** Ids of the capabilities this server implements. An id the catalogue does not know is ignored. */
  built: ReadonlySet<string>;
  /** Whether a model is configured, for the capabilities that need one. */
  modelConfigured: boolean;
  /** Whether the configured model can draw (KGATE_MODEL_IMAGE), for image generation; absent: no. */
  imageModelConfigured?: boolean;
}

/** Reason shown for a capability this server does not implement yet. */
export const NOT_BUILT_REASON = 'not available on this server yet';
/** Reason shown for a model-backed capability on a server without a model. */
export const NO_MODEL_REASON = 'no model is configured on this server';
/** Reason shown for image generation on a server whose model has no image model. */
export const NO_IMAGE_MODEL_REASON = 'no image model is configured on this server';

/** Why a capability is unavailable, for clients to branch on (the reason text may change). */
export const UnavailableReasonCodeSchema = z.enum(['not_built', 'model_not_configured']);

/** One capability with its availability, as getCapabilities answers it. */
export const CapabilityAvailabilitySchema = z.discriminatedUnion('availability', [
  z.strictObject({
    id: CapabilityIdSchema,
    title: z.string(),
    family: CapabilityFamilySchema,
    scope: RuntimeScopeSchema.nullable(),
    needsModel: z.boolean(),
    availability: z.literal('available'),
  }),
  z.strictObject({
    id: CapabilityIdSchema,
    title: z.string(),
    family: CapabilityFamilySchema,
    scope: RuntimeScopeSchema.nullable(),
    needsModel: z.boolean(),
    availability: z.literal('unavailable'),
    reasonCode: UnavailableReasonCodeSchema,
    reason: z.string(),
  }),
]);
/** See CapabilityAvailabilitySchema. */
export type CapabilityAvailability = z.infer<typeof CapabilityAvailabilitySchema>;

/** The availability of one capability from the facts: not built first, then no model, else available. */
export function availabilityOf(capability: Capability, facts: CapabilityFacts): CapabilityAvailability {
  const { id, title, family, scope, needsModel } = capability;
  if (!facts.built.has(id)) {
    return { id, title, family, scope, needsModel, availability: 'unavailable', reasonCode: 'not_built', reason: NOT_BUILT_REASON };
  }
  if (needsModel && !facts.modelConfigured) {
    return { id, title, family, scope, needsModel, availability: 'unavailable', reasonCode: 'model_not_configured', reason: NO_MODEL_REASON };
  }
  // Drawing needs an image model besides the chat model; the endpoint answers `unavailable` without one, and so does this.
  if (id === 'education.generate-image' && !facts.imageModelConfigured) {
    return { id, title, family, scope, needsModel, availability: 'unavailable', reasonCode: 'model_not_configured', reason: NO_IMAGE_MODEL_REASON };
  }
  return { id, title, family, scope, needsModel, availability: 'available' };
}

/** Every capability of the catalogue with its availability, in catalogue order. */
export function catalogueAvailability(facts: CapabilityFacts): CapabilityAvailability[] {
  return CAPABILITIES.map((capability) => availabilityOf(capability, facts));
}
