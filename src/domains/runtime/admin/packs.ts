import { KgateError } from '../../../kernel/errors.ts';
import { DOMAIN_PACKS, domainPackOf, parseBrandProfile, parseExperiencePack, type BrandProfile, type ExperiencePack } from '../presentation/index.ts';

// The presentation data an organization admin writes: a product's domain pack and experience pack, the
// organization's brand. Checked on write by the presentation schemas; none of it is ever read for authorization.

/** A product's domain pack: one this server knows, or null for none. */
export function checkDomainPack(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || domainPackOf(value) === undefined) {
    throw new KgateError('invalid_request', `The domain pack is one of: ${DOMAIN_PACKS.map((pack) => pack.slug).join(', ')}.`, { field: 'domainPack' });
  }
  return value;
}

/** A product's experience pack (presentation only), or null for none. */
export function checkExperiencePack(value: unknown): ExperiencePack | null {
  if (value === null || value === undefined) return null;
  return parseExperiencePack(value);
}

/** An organization's brand profile, or null to remove it. */
export function checkBrand(value: unknown): BrandProfile | null {
  if (value === null) return null;
  return parseBrandProfile(value);
}
