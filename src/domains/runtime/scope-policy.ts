import { noteChangeRefusal, type ApprovalPolicy } from '../vaults/index.ts';
import { roleAllows } from '../workspaces/index.ts';
import type { RuntimePrincipal, VaultGrantAccess } from './contract.ts';
import type { ReachedScope } from './service.ts';

/** What a product may do through one context scope, every inherited rule applied (getEffectiveScopePolicy). */
export interface EffectiveScopePolicy {
  publish: boolean;
  grant: VaultGrantAccess;
  approvalPolicy: ApprovalPolicy;
  previewRequired: boolean;
  /** Why publishing is refused, one entry per rule that refuses it, each with the code the refusal would carry. */
  reasons: Array<{ code: string; message: string }>;
}

/**
 * Decides, with the rules that refuse a real publish, whether the product may publish through a scope it reached:
 * the vault grant, the token's scopes, the mapping's flags under the `direct` capability, and the customer's role.
 */
export function effectiveScopePolicy(principal: RuntimePrincipal, reached: ReachedScope): EffectiveScopePolicy {
  const { scope, vault } = reached;
  const reasons: EffectiveScopePolicy['reasons'] = [];
  if (vault.access !== 'publish') reasons.push({ code: 'vault_grant_read_only', message: 'The customer granted this vault for reading only.' });
  if (!principal.scopes.includes('notes.publish')) reasons.push({ code: 'insufficient_scope', message: 'The access token does not carry notes.publish.' });
  const refusal = noteChangeRefusal(scope.mapping, 'direct');
  if (refusal) reasons.push({ code: refusal.code, message: refusal.message });
  if (!roleAllows(scope.role, 'vault.write')) reasons.push({ code: 'forbidden', message: "The customer's role in the workspace does not allow writing." });
  return {
    publish: reasons.length === 0,
    grant: vault.access,
    approvalPolicy: scope.mapping.approvalPolicy,
    previewRequired: scope.mapping.approvalPolicy !== 'open',
    reasons,
  };
}
