/** Product Runtime administration: organizations, products, installations, workspace assignments, vault grants, memory decisions. */
export { MAX_LISTED, MAX_LISTED_CANDIDATES, MAX_RETURN_ORIGINS } from './contract.ts';
export type {
  CustomerInstallation,
  DecidedMemoryCandidate,
  InstallableProduct,
  InstallationStatus,
  Listing,
  MemoryCandidate,
  MemoryDecision,
  OrganizationAdmin,
  OrganizationStatus,
  OrganizationWithAdmins,
  ProductChange,
  ProductDefinition,
  ProductInstallation,
  ProductRuntimeSettingsChange,
  ProductStatus,
  RuntimeOrganization,
  RuntimeProduct,
  VaultGrant,
  WorkspaceAssignment,
} from './contract.ts';
export type { RuntimeAdminDeps } from './context.ts';
export { createRuntimeAdminService } from './service.ts';
export type { RuntimeAdminService } from './service.ts';
