import type { Sql } from '../../db/port.ts';
import type { RuntimePrincipal } from './contract.ts';
import { BrandProfileSchema, ExperiencePackSchema, type PresentationSources } from './presentation/index.ts';

/**
 * The presentation records of the principal's product and organization, read after the chain authorized the call.
 * Both were validated on write; a stored value that no longer validates (an older schema) is shown as none rather
 * than in part.
 */
export async function presentationSourcesOf(sql: Sql, principal: RuntimePrincipal): Promise<PresentationSources> {
  const rows = await sql.query<{ experience_pack: unknown; brand: unknown }>(
    `SELECT p.experience_pack, o.brand FROM runtime_products p JOIN runtime_organizations o ON o.id = p.organization_id WHERE p.id = $1`,
    [principal.product.id],
  );
  const row = rows[0];
  const pack = ExperiencePackSchema.safeParse(row?.experience_pack);
  const brand = BrandProfileSchema.safeParse(row?.brand);
  return {
    product: { name: principal.product.name, slug: principal.product.slug, domainPack: principal.product.domainPack, experiencePack: pack.success ? pack.data : null },
    brand: brand.success ? brand.data : null,
  };
}
