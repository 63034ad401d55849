import { z } from 'zod';

/** The Product Runtime contract version this server speaks (spec 9.4); hosted callers send it in X-Service-Runtime-Version. */
export const RUNTIME_VERSION = 1 as const;

/** The credential scopes of an installation's service principal (spec 5, rule 6). */
export const RuntimeScopeSchema = z.enum([
  'intelligence.execute',
  'media.write',
  'media.read',
  'connections.manage',
  'connections.execute',
  'notes.publish',
]);
/** See RuntimeScopeSchema. */
export type RuntimeScope = z.infer<typeof RuntimeScopeSchema>;
/** Every runtime scope, in the spec's order. */
export const RUNTIME_SCOPES: readonly RuntimeScope[] = RuntimeScopeSchema.options;

/** Default private-media ceiling of an organization (spec 8): 500 MiB. */
export const DEFAULT_MEDIA_STORAGE_BYTES = 500 * 1024 * 1024;

/**
 * `organization.settings.productRuntime` (spec 2.6), shared by every installation of the organization.
 * `apiOperationsPerMonth`: a positive integer is the monthly ceiling, absent (blank) is no cap, 0 pauses Product
 * Runtime access. `intelligenceBudgetMicrodollarsMonthly`: absent or 0 fails closed. `mediaStorageBytes`: default
 * DEFAULT_MEDIA_STORAGE_BYTES.
 */
export const ProductRuntimeSettingsSchema = z.strictObject({
  apiOperationsPerMonth: z.number().int().min(0).max(2_000_000_000).optional(),
  intelligenceBudgetMicrodollarsMonthly: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  maxConcurrentIntelligence: z.number().int().min(1).max(10_000).optional(),
  mediaStorageBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
/** See ProductRuntimeSettingsSchema. */
export type ProductRuntimeSettings = z.infer<typeof ProductRuntimeSettingsSchema>;

/** Grants of a logical vault to an installation: read, or read and publish. */
export const VaultGrantAccessSchema = z.enum(['read', 'publish']);
/** See VaultGrantAccessSchema. */
export type VaultGrantAccess = z.infer<typeof VaultGrantAccessSchema>;

/**
 * An authenticated service principal with links 1 to 8 of the chain resolved (docs/runtime.md): the token, the
 * principal, its credential, installation, product, organization and customer account, all active now. `scopes`
 * are the token's scopes that the principal still holds.
 */
export interface RuntimePrincipal {
  principalId: string;
  principalName: string;
  credentialId: string;
  scopes: readonly RuntimeScope[];
  installationId: string;
  /** The installation's intelligence budget sublimit in microdollars a month (spec 2.6), or null for none. */
  intelligenceSublimitMicrodollars: number | null;
  /** The customer account that installed the product: the actor of what the product changes. */
  customerAccountId: string;
  product: { id: string; slug: string; name: string; domainPack: string | null };
  organization: { id: string; slug: string; name: string; settings: ProductRuntimeSettings };
}

/** Lifetime of a Product Runtime access token. */
export const RUNTIME_TOKEN_TTL_SECONDS = 15 * 60;
/** Longest name of an organization, product or principal. */
export const MAX_RUNTIME_NAME_LENGTH = 200;
/** Slugs of organizations and products: lowercase words joined by hyphens. */
export const RuntimeSlugSchema = z
  .string()
  .min(2)
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'a slug is lowercase letters and digits joined by single hyphens');
