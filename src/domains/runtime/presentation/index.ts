/**
 * Presentation of the Product Runtime (spec 1.6 to 1.9): organization brand profiles, product experience packs,
 * domain intelligence packs, the capability catalogue and the composition of what a product shows. Pure functions
 * and schemas, no I/O; none of it is authority.
 */
export {
  BrandColourSchema,
  BrandColoursSchema,
  BrandProfileSchema,
  BrandUrlSchema,
  MAX_BRAND_DISPLAY_NAME_LENGTH,
  MAX_BRAND_TAGLINE_LENGTH,
  MAX_BRAND_URL_LENGTH,
  MAX_BRAND_WELCOME_TEXT_LENGTH,
  parseBrandProfile,
} from './brand.ts';
export type { BrandProfile } from './brand.ts';
export { MIN_TEXT_CONTRAST_RATIO, contrastRatio, relativeLuminance } from './contrast.ts';
export {
  BUILT_CAPABILITIES,
  CAPABILITIES,
  CAPABILITY_IDS,
  CapabilityAvailabilitySchema,
  CapabilityFamilySchema,
  CapabilityIdSchema,
  NO_MODEL_REASON,
  NO_IMAGE_MODEL_REASON,
  NOT_BUILT_REASON,
  UnavailableReasonCodeSchema,
  availabilityOf,
  capabilityOf,
  catalogueAvailability,
  isCapabilityId,
} from './capabilities.ts';
export type { Capability, CapabilityAvailability, CapabilityFacts, CapabilityFamily, CapabilityId } from './capabilities.ts';
export { DOMAIN_PACKS, DomainPackSlugSchema, EDUCATION_PACK, domainPackOf } from './domain-packs.ts';
export type { DomainPack, EntityKind, RelationshipKind } from './domain-packs.ts';
export {
  CapabilityVisibilitySchema,
  DensitySchema,
  EXPERIENCE_PACK_VERSION,
  ExperiencePackSchema,
  MAX_NAVIGATION_ITEMS,
  MAX_NAVIGATION_LABEL_LENGTH,
  MAX_ONBOARDING_STEPS,
  MAX_ONBOARDING_TITLE_LENGTH,
  MAX_PACK_IDENTIFIER_LENGTH,
  MAX_TERM_LABEL_LENGTH,
  MAX_TERMINOLOGY_ENTRIES,
  NavigationItemSchema,
  OnboardingStepSchema,
  parseExperiencePack,
} from './experience-pack.ts';
export type { CapabilityVisibility, Density, ExperiencePack, NavigationItem, OnboardingStep } from './experience-pack.ts';
export { ComposedPresentationSchema, composePresentation } from './compose.ts';
export type { ComposedPresentation, PresentationSources, ProductPresentation } from './compose.ts';
