import type { ProductRuntimeSettings, VaultGrantAccess } from '../contract.ts';
import type { BrandProfile, ExperiencePack } from '../presentation/index.ts';

/** Whether an organization's products reach kgate: a suspended organization's every credential stops at once. */
export type OrganizationStatus = 'active' | 'suspended';
/** Whether a product can be installed and used: a retired product's installations stop. */
export type ProductStatus = 'active' | 'retired';
/** An installation is active until its customer uninstalls it; re-installing creates a new one. */
export type InstallationStatus = 'active' | 'uninstalled';
/** What a person decides about a shared memory candidate. */
export type MemoryDecision = 'accepted' | 'rejected';

/** Most return origins and redirect URIs one product registers. */
export const MAX_RETURN_ORIGINS = 10;
/** Most rows one listing answers; a longer listing says `truncated`. */
export const MAX_LISTED = 500;
/** Most memory candidates one listing answers (newest first), undecided or decided. */
export const MAX_LISTED_CANDIDATES = 100;

/** A product organization (docs/runtime.md, "Organizations, products, installations"). */
export interface RuntimeOrganization {
  id: string;
  slug: string;
  name: string;
  status: OrganizationStatus;
  /** `settings.productRuntime` (spec 2.6); a field left out has its documented meaning (no cap, fails closed, default). */
  settings: ProductRuntimeSettings;
  /** The brand profile as validated on write; null when none is set. */
  brand: BrandProfile | null;
  createdAt: Date;
}

/** An account that administers an organization. */
export interface OrganizationAdmin {
  accountId: string;
  email: string;
}

/** An organization with its admins, as the operator lists it. */
export interface OrganizationWithAdmins extends RuntimeOrganization {
  admins: OrganizationAdmin[];
}

/**
 * A change of `settings.productRuntime`: a number sets a field, null clears it (blank: no cap for
 * apiOperationsPerMonth), a field left out is kept.
 */
export type ProductRuntimeSettingsChange = { [K in keyof ProductRuntimeSettings]?: number | null };

/** A product definition. */
export interface RuntimeProduct {
  id: string;
  organizationId: string;
  slug: string;
  name: string;
  status: ProductStatus;
  /** The domain intelligence pack, for example `education`; null for none. */
  domainPack: string | null;
  /** The product experience pack (presentation only); null for none. */
  experiencePack: ExperiencePack | null;
  /** HTTPS origins and exact HTTPS redirect URIs of delegated provider connections (spec 4.7). */
  returnOrigins: string[];
  createdAt: Date;
}

/** What an organization admin gives to define a product. */
export interface ProductDefinition {
  /** Lowercase words joined by hyphens; unique across organizations; never changes. */
  slug: string;
  name: string;
  domainPack?: string | null;
  experiencePack?: unknown;
  /** At most MAX_RETURN_ORIGINS; each an HTTPS origin or an exact HTTPS redirect URI. */
  returnOrigins?: readonly string[];
}

/** A change of a product: what is given is replaced, the rest kept; the slug never changes. */
export type ProductChange = Partial<Omit<ProductDefinition, 'slug'>>;

/** A product a customer may install now: active, of an active organization. */
export interface InstallableProduct {
  slug: string;
  name: string;
  organizationName: string;
  domainPack: string | null;
}

/** A customer workspace an installation may work in. */
export interface WorkspaceAssignment {
  workspaceId: string;
  workspaceName: string;
  assignedAt: Date;
}

/** A logical vault of an assigned workspace the installation may read, or read and publish to. */
export interface VaultGrant {
  vaultId: string;
  vaultName: string;
  workspaceId: string;
  access: VaultGrantAccess;
  /** When the product last bound the vault (bindHostedVault); a binding grants nothing. */
  boundAt: Date | null;
  grantedAt: Date;
}

/** A customer's installation, as the customer sees it. */
export interface CustomerInstallation {
  id: string;
  status: InstallationStatus;
  product: { id: string; slug: string; name: string; status: ProductStatus };
  organization: { name: string; status: OrganizationStatus };
  /** `configuration.productRuntime.intelligenceBudgetMicrodollarsMonthly`; null: the organization's budget alone. */
  intelligenceSublimitMicrodollars: number | null;
  createdAt: Date;
  uninstalledAt: Date | null;
  assignments: WorkspaceAssignment[];
  grants: VaultGrant[];
}

/**
 * An installation of a product, as its organization's admins see it: whose it is (they issue its credentials) and
 * whether it is active; not which workspaces or vaults the customer granted.
 */
export interface ProductInstallation {
  id: string;
  status: InstallationStatus;
  customer: { accountId: string; email: string };
  createdAt: Date;
  uninstalledAt: Date | null;
}

/** A shared memory candidate a product proposed: waiting for a person's decision, or decided. */
export interface MemoryCandidate {
  id: string;
  vaultId: string;
  scope: { id: string; name: string };
  /** The product that proposed it (through an installation of this vault's customer). */
  product: { slug: string; name: string };
  title: string;
  body: string;
  evidence: unknown;
  status: 'candidate' | MemoryDecision;
  createdAt: Date;
  decidedBy: string | null;
  decidedAt: Date | null;
}

/**
 * A candidate a person accepted or rejected, with who decided: `decider` is null once that person's account is deleted
 * (the decision stands; `decidedBy` is null then too).
 */
export interface DecidedMemoryCandidate extends MemoryCandidate {
  status: MemoryDecision;
  decider: { accountId: string; email: string } | null;
}

/** A bounded listing. */
export interface Listing<T> {
  items: T[];
  /** More rows exist than the listing answers. */
  truncated: boolean;
}
