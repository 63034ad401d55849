/**
 * The presentation part of getRuntimeContext and getDomainComposition (spec 1.6, 1.7; docs/runtime.md "Packs and
 * brands"): a product's brand, experience and domain semantics, composed from server records after the chain has
 * authorized the call. Presentation only: see composePresentation.
 */
import { z } from 'zod';
import type { BrandProfile } from './brand.ts';
import { CapabilityIdSchema } from './capabilities.ts';
import { domainPackOf } from './domain-packs.ts';
import type { DomainPack } from './domain-packs.ts';
import { DensitySchema, NavigationItemSchema, OnboardingStepSchema } from './experience-pack.ts';
import type { ExperiencePack } from './experience-pack.ts';

/** The presentation records of a product definition (`runtime_products`). */
export interface ProductPresentation {
  /** The product's name: its display name unless the organization's brand names another. */
  name: string;
  slug: string;
  /** `runtime_products.domain_pack`: a domain pack slug, or null for none. */
  domainPack: string | null;
  /** `runtime_products.experience_pack`, as validated on write, or null for none. */
  experiencePack: ExperiencePack | null;
}

/** What composePresentation reads: the product's presentation records and its organization's brand profile. */
export interface PresentationSources {
  product: ProductPresentation;
  /** `runtime_organizations.brand`, as validated on write, or null for none. */
  brand: BrandProfile | null;
}

const NullableColour = z.string().nullable();

/** The composed brand: every field present, null where the brand says nothing. */
export const ComposedBrandSchema = z.strictObject({
  displayName: z.string(),
  colors: z.strictObject({ primary: NullableColour, accent: NullableColour, background: NullableColour, text: NullableColour }),
  logoUrl: z.string().nullable(),
  supportUrl: z.string().nullable(),
  tagline: z.string().nullable(),
  welcomeText: z.string().nullable(),
});

/** A domain pack as getDomainComposition shows it. */
export const ComposedDomainPackSchema = z.strictObject({
  slug: z.string(),
  title: z.string(),
  entityKinds: z.array(z.strictObject({ id: z.string(), title: z.string() })),
  relationshipKinds: z.array(z.strictObject({ id: z.string(), title: z.string(), from: z.array(z.string()), to: z.array(z.string()) })),
  deterministicIntelligence: z.array(CapabilityIdSchema),
  modelBackedWorkflows: z.array(CapabilityIdSchema),
  media: z.array(CapabilityIdSchema),
  connections: z.array(CapabilityIdSchema),
});

/** The composed experience: navigation without hidden capabilities, terminology, onboarding steps. */
export const ComposedExperienceSchema = z.strictObject({
  /** The pack's theme name, or null for the server's own. */
  theme: z.string().nullable(),
  density: DensitySchema,
  navigation: z.array(NavigationItemSchema),
  terminology: z.record(z.string(), z.string()),
  onboarding: z.array(OnboardingStepSchema),
});

/**
 * The presentation part of getRuntimeContext and getDomainComposition. Strict: it has no place for a scope, a grant,
 * an audience or any other authority, and a field it does not name is refused.
 */
export const ComposedPresentationSchema = z.strictObject({
  product: z.strictObject({ name: z.string(), slug: z.string() }),
  brand: ComposedBrandSchema,
  experience: ComposedExperienceSchema,
  domainPack: ComposedDomainPackSchema.nullable(),
});
/** See ComposedPresentationSchema. */
export type ComposedPresentation = z.infer<typeof ComposedPresentationSchema>;

function composeDomainPack(pack: DomainPack): ComposedPresentation['domainPack'] {
  return {
    slug: pack.slug,
    title: pack.title,
    entityKinds: pack.entityKinds.map(({ id, title }) => ({ id, title })),
    relationshipKinds: pack.relationshipKinds.map(({ id, title, from, to }) => ({ id, title, from: [...from], to: [...to] })),
    deterministicIntelligence: [...pack.deterministicIntelligence],
    modelBackedWorkflows: [...pack.modelBackedWorkflows],
    media: [...pack.media],
    connections: [...pack.connections],
  };
}

function composeExperience(pack: ExperiencePack | null): ComposedPresentation['experience'] {
  const hidden = new Set(
    Object.entries(pack?.capabilityVisibility ?? {})
      .filter(([, visibility]) => visibility === 'hidden')
      .map(([id]) => id),
  );
  const terms = Object.entries(pack?.terminology ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    theme: pack?.presentation?.theme ?? null,
    density: pack?.presentation?.density ?? 'comfortable',
    navigation: (pack?.navigation ?? [])
      .filter((item) => !hidden.has(item.capability))
      .map(({ id, label, capability }) => ({ id, label, capability })),
    terminology: Object.fromEntries(terms),
    onboarding: (pack?.onboarding?.steps ?? []).map(({ id, title, capability }) => ({ id, title, capability })),
  };
}

/**
 * Composes a product's presentation: the organization's brand over the product's defaults (the display name falls
 * back to the product's name), the experience pack's theme, terminology and onboarding, its navigation without the
 * capabilities it hides, and the domain pack's semantics (null when the product names none this server knows).
 *
 * Presentation cannot change authority here, by construction: the function takes only presentation records and
 * answers only presentation data. Neither side has a place for a scope, a grant, a workspace, a vault or an
 * audience (the brand and pack schemas are strict, so such fields are refused on write), every output field is
 * copied by name (an extra property that slipped into an input never reaches the output), and the caller runs it
 * after the chain has authorized the call. Hiding a capability changes the product's navigation only: the catalogue
 * (catalogueAvailability) still reports it with its real availability, and no pack can make one available.
 */
export function composePresentation(sources: PresentationSources): ComposedPresentation {
  const { product, brand } = sources;
  const pack = product.domainPack === null ? undefined : domainPackOf(product.domainPack);
  return {
    product: { name: product.name, slug: product.slug },
    brand: {
      displayName: brand?.displayName ?? product.name,
      colors: {
        primary: brand?.colors?.primary ?? null,
        accent: brand?.colors?.accent ?? null,
        background: brand?.colors?.background ?? null,
        text: brand?.colors?.text ?? null,
      },
      logoUrl: brand?.logoUrl ?? null,
      supportUrl: brand?.supportUrl ?? null,
      tagline: brand?.tagline ?? null,
      welcomeText: brand?.welcomeText ?? null,
    },
    experience: composeExperience(product.experiencePack),
    domainPack: pack === undefined ? null : composeDomainPack(pack),
  };
}
