/**
 * Product experience packs (spec 1.7; docs/runtime.md "Packs and brands"): how a product presents itself:
 * its theme and density, navigation, terminology, onboarding intent, and which capabilities its own navigation
 * shows. A pack is presentation only: hiding a capability removes it from the product's navigation and never
 * enables one, and nothing here is read by any link of the authorization chain.
 */
import { z } from 'zod';
import { CapabilityIdSchema, isCapabilityId } from './capabilities.ts';
import { parseOrRefuse } from './refusal.ts';
import { packIdentifier, shownText } from './text.ts';

/** The experience pack format this server reads. */
export const EXPERIENCE_PACK_VERSION = 1;
/** Longest identifier of a navigation item, onboarding step, term or theme. */
export const MAX_PACK_IDENTIFIER_LENGTH = 40;
/** Most navigation items of a pack. */
export const MAX_NAVIGATION_ITEMS = 20;
/** Longest label of a navigation item. */
export const MAX_NAVIGATION_LABEL_LENGTH = 40;
/** Most terminology entries of a pack. */
export const MAX_TERMINOLOGY_ENTRIES = 50;
/** Longest label a term is shown as. */
export const MAX_TERM_LABEL_LENGTH = 60;
/** Most onboarding steps of a pack. */
export const MAX_ONBOARDING_STEPS = 10;
/** Longest title of an onboarding step. */
export const MAX_ONBOARDING_TITLE_LENGTH = 80;

/** How tightly a product lays out its pages. */
export const DensitySchema = z.enum(['comfortable', 'compact']);
/** See DensitySchema. */
export type Density = z.infer<typeof DensitySchema>;

/** Whether the product's own navigation shows a capability; `hidden` never changes what the capability can do. */
export const CapabilityVisibilitySchema = z.enum(['visible', 'hidden']);
/** See CapabilityVisibilitySchema. */
export type CapabilityVisibility = z.infer<typeof CapabilityVisibilitySchema>;

/** Refuses a list in which two entries share an id, naming the later one. */
function uniqueIds(ctx: z.core.ParsePayload<readonly { id: string }[]>): void {
  const seen = new Set<string>();
  ctx.value.forEach((item, index) => {
    if (seen.has(item.id)) ctx.issues.push({ code: 'custom', path: [index, 'id'], message: `must be unique: ${item.id} is used twice`, input: item.id });
    seen.add(item.id);
  });
}

/** One entry of the product's navigation: an item that opens a capability. */
export const NavigationItemSchema = z.strictObject({
  id: packIdentifier(MAX_PACK_IDENTIFIER_LENGTH),
  label: shownText({ max: MAX_NAVIGATION_LABEL_LENGTH }),
  capability: CapabilityIdSchema,
});
/** See NavigationItemSchema. */
export type NavigationItem = z.infer<typeof NavigationItemSchema>;

/** One step of the product's onboarding intent: what a new customer is led to first, and with which capability. */
export const OnboardingStepSchema = z.strictObject({
  id: packIdentifier(MAX_PACK_IDENTIFIER_LENGTH),
  title: shownText({ max: MAX_ONBOARDING_TITLE_LENGTH }),
  capability: CapabilityIdSchema,
});
/** See OnboardingStepSchema. */
export type OnboardingStep = z.infer<typeof OnboardingStepSchema>;

/** The product's words for kgate's terms ("workspace" shown as "Classroom"): term to label. */
export const TerminologySchema = z.record(packIdentifier(MAX_PACK_IDENTIFIER_LENGTH), shownText({ max: MAX_TERM_LABEL_LENGTH })).check((ctx) => {
  const count = Object.keys(ctx.value).length;
  if (count > MAX_TERMINOLOGY_ENTRIES) {
    ctx.issues.push({ code: 'custom', message: `must have at most ${MAX_TERMINOLOGY_ENTRIES} entries, not ${count}`, input: ctx.value });
  }
});

/** Capability id to visibility; every key must be a capability the catalogue knows. */
export const CapabilityVisibilityMapSchema = z.record(z.string(), CapabilityVisibilitySchema).check((ctx) => {
  for (const id of Object.keys(ctx.value)) {
    if (!isCapabilityId(id)) {
      ctx.issues.push({ code: 'custom', path: [id], message: 'is not a capability id the catalogue knows', input: id });
      return;
    }
  }
});

/**
 * A product experience pack, version 1. Every part but the version is optional; every list and map is bounded.
 * Strict at every level: a field it does not name (an audience, a scope, a grant, anything else) is refused.
 */
export const ExperiencePackSchema = z.strictObject({
  version: z.literal(EXPERIENCE_PACK_VERSION),
  presentation: z
    .strictObject({
      theme: packIdentifier(MAX_PACK_IDENTIFIER_LENGTH).optional(),
      density: DensitySchema.optional(),
    })
    .optional(),
  navigation: z.array(NavigationItemSchema).max(MAX_NAVIGATION_ITEMS).check(uniqueIds).optional(),
  terminology: TerminologySchema.optional(),
  onboarding: z
    .strictObject({ steps: z.array(OnboardingStepSchema).max(MAX_ONBOARDING_STEPS).check(uniqueIds) })
    .optional(),
  capabilityVisibility: CapabilityVisibilityMapSchema.optional(),
});
/** A valid experience pack. */
export type ExperiencePack = z.output<typeof ExperiencePackSchema>;

/**
 * An experience pack from whatever a caller sent (an organization admin's product definition, the CLI, a stored
 * value), or `invalid_request` with `details.field` naming the first field at fault ("navigation.3.capability").
 */
export function parseExperiencePack(value: unknown): ExperiencePack {
  return parseOrRefuse(ExperiencePackSchema, value, 'an experience pack');
}
