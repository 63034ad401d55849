import { describe, expect, it } from 'vitest';
import { parseBrandProfile } from './brand.ts';
import { catalogueAvailability } from './capabilities.ts';
import { ComposedPresentationSchema, composePresentation } from './compose.ts';
import type { ProductPresentation } from './compose.ts';
import { parseExperiencePack } from './experience-pack.ts';

const PACK = parseExperiencePack({
  version: 1,
  presentation: { theme: 'tidewater', density: 'compact' },
  navigation: [
    { id: 'plans', label: 'Plans', capability: 'notes.list' },
    { id: 'images', label: 'Pictures', capability: 'education.generate-image' },
    { id: 'trash', label: 'Bin', capability: 'notes.trash' },
  ],
  terminology: { workspace: 'School', vault: 'Plan book' },
  onboarding: { steps: [{ id: 'pictures', title: 'Make a picture', capability: 'education.generate-image' }] },
  capabilityVisibility: { 'education.generate-image': 'hidden', 'notes.trash': 'visible' },
});

const PRODUCT: ProductPresentation = { name: 'Tidewater Planner', slug: 'tidewater-planner', domainPack: 'education', experiencePack: PACK };

const BRAND = parseBrandProfile({
  displayName: 'Bayside District',
  colors: { primary: '#1A5FB4', text: '#1b1b1b', background: '#FFFFFF' },
  logoUrl: 'https://cdn.bayside.example/logo.svg',
  tagline: 'Learning by the bay',
});

/** Every key of a JSON-like value, at any depth. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

describe('composePresentation', () => {
  it('applies the brand over the product defaults', () => {
    const composed = composePresentation({ product: PRODUCT, brand: BRAND });
    expect(composed.product).toEqual({ name: 'Tidewater Planner', slug: 'tidewater-planner' });
    expect(composed.brand).toEqual({
      displayName: 'Bayside District',
      colors: { primary: '#1a5fb4', accent: null, background: '#ffffff', text: '#1b1b1b' },
      logoUrl: 'https://cdn.bayside.example/logo.svg',
      supportUrl: null,
      tagline: 'Learning by the bay',
      welcomeText: null,
    });
  });

  it('falls back to the product name without a brand', () => {
    const composed = composePresentation({ product: PRODUCT, brand: null });
    expect(composed.brand.displayName).toBe('Tidewater Planner');
    expect(composed.brand.colors).toEqual({ primary: null, accent: null, background: null, text: null });
    expect(composed.brand.logoUrl).toBeNull();
  });

  it('removes a hidden capability from navigation only; the catalogue still reports its real availability', () => {
    const composed = composePresentation({ product: PRODUCT, brand: BRAND });
    expect(composed.experience.navigation.map((item) => item.id)).toEqual(['plans', 'trash']);
    // Onboarding intent and the domain pack are not navigation: they still name it.
    expect(composed.experience.onboarding.map((step) => step.capability)).toEqual(['education.generate-image']);
    expect(composed.domainPack?.modelBackedWorkflows).toContain('education.generate-image');
    const entry = catalogueAvailability({ built: new Set(), modelConfigured: true }).find((e) => e.id === 'education.generate-image');
    expect(entry).toMatchObject({ availability: 'unavailable', reason: 'not available on this server yet' });
    const built = catalogueAvailability({ built: new Set(['education.generate-image']), modelConfigured: true, imageModelConfigured: true }).find((e) => e.id === 'education.generate-image');
    expect(built?.availability).toBe('available');
  });

  it("shows the pack's theme, density and terminology, and defaults without a pack", () => {
    expect(composePresentation({ product: PRODUCT, brand: null }).experience).toMatchObject({
      theme: 'tidewater',
      density: 'compact',
      terminology: { vault: 'Plan book', workspace: 'School' },
    });
    expect(composePresentation({ product: { ...PRODUCT, experiencePack: null }, brand: null }).experience).toEqual({
      theme: null,
      density: 'comfortable',
      navigation: [],
      terminology: {},
      onboarding: [],
    });
  });

  it('composes the domain pack, or none for a product without one or with one this server does not know', () => {
    const composed = composePresentation({ product: PRODUCT, brand: null });
    expect(composed.domainPack?.slug).toBe('education');
    expect(composed.domainPack?.entityKinds.map((kind) => kind.id)).toContain('learning-target');
    expect(composePresentation({ product: { ...PRODUCT, domainPack: null }, brand: null }).domainPack).toBeNull();
    expect(composePresentation({ product: { ...PRODUCT, domainPack: 'finance' }, brand: null }).domainPack).toBeNull();
  });

  it('answers exactly the published shape, with nothing named like authority', () => {
    const composed = composePresentation({ product: PRODUCT, brand: BRAND });
    expect(ComposedPresentationSchema.parse(composed)).toEqual(composed);
    const keys = keysOf(composed).map((key) => key.toLowerCase());
    for (const forbidden of ['scope', 'scopes', 'grant', 'grants', 'audience', 'role', 'vaultid', 'workspaceid']) {
      expect(keys).not.toContain(forbidden);
    }
  });

  it('copies fields by name: authority smuggled into an input past the types never reaches the output', () => {
    const brand = { ...BRAND, scopes: ['notes.publish'], audience: 'owners' } as typeof BRAND;
    const pack = {
      ...PACK,
      grants: [{ vaultId: 'v', access: 'publish' }],
      navigation: [{ id: 'plans', label: 'Plans', capability: 'notes.list', scope: 'notes.publish' }],
      // Through `unknown`: the types refuse a `scope` on a navigation item even in a cast, which is the point.
    } as unknown as typeof PACK;
    const product = { ...PRODUCT, experiencePack: pack, grants: ['everything'] } as ProductPresentation;
    const composed = composePresentation({ product, brand });
    expect(ComposedPresentationSchema.safeParse(composed).success).toBe(true);
    expect(keysOf(composed)).not.toContain('scopes');
    expect(keysOf(composed)).not.toContain('audience');
    expect(keysOf(composed)).not.toContain('grants');
    expect(keysOf(composed)).not.toContain('scope');
  });

  it('does not change its inputs or share their arrays', () => {
    const before = structuredClone({ PRODUCT, BRAND });
    const composed = composePresentation({ product: PRODUCT, brand: BRAND });
    composed.experience.navigation.pop();
    composed.domainPack?.modelBackedWorkflows.pop();
    expect({ PRODUCT, BRAND }).toEqual(before);
    expect(composePresentation({ product: PRODUCT, brand: BRAND }).experience.navigation).toHaveLength(2);
    expect(composePresentation({ product: PRODUCT, brand: BRAND }).domainPack?.modelBackedWorkflows).toHaveLength(7);
  });

  it('has strict sources: a brand or a pack naming scopes, grants or an audience is refused before it is stored', () => {
    expect(() => parseBrandProfile({ displayName: 'A', scopes: ['notes.publish'] })).toThrow(/scopes is not a field/);
    expect(() => parseBrandProfile({ displayName: 'A', grants: [] })).toThrow(/grants is not a field/);
    expect(() => parseBrandProfile({ displayName: 'A', audience: 'owners' })).toThrow(/audience is not a field/);
    expect(() => parseExperiencePack({ version: 1, scopes: ['notes.publish'] })).toThrow(/scopes is not a field/);
    expect(() => parseExperiencePack({ version: 1, grants: [] })).toThrow(/grants is not a field/);
    expect(() => parseExperiencePack({ version: 1, audience: 'owners' })).toThrow(/audience is not a field/);
    expect(() => parseExperiencePack({ version: 1, capabilityVisibility: { 'notes.publish': 'granted' } })).toThrow(/capabilityVisibility/);
  });
});
