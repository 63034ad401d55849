/** Onboarding: first-run setup that ties accounts, workspaces, vaults and tokens together. */
export { DEFAULT_OWNER_EMAIL, DEFAULT_VAULT_NAME, DEFAULT_WORKSPACE_NAME, createOnboardingService } from './service.ts';
export type { BootstrapInput, BootstrapResult, OnboardingService } from './service.ts';
