import { KgateError, isKgateError } from '../../../kernel/errors.ts';
import { roleAllows } from '../../workspaces/index.ts';
import type { AdminContext } from './context.ts';
import type { DecidedMemoryCandidate, Listing, MemoryCandidate, MemoryDecision } from './contract.ts';
import * as memory from './memory-store.ts';
import { assertId, notFound, parseDecision } from './policy.ts';

/**
 * People's decisions about the shared memory products propose (docs/runtime.md, "Shared memory"): a candidate is
 * never trusted memory until a person with the vault's write permission accepts it, and a product never decides.
 * Candidates are visible only to those who may decide them: for anyone else a vault's candidates, and a candidate,
 * are `not_found`.
 */
export interface MemoryDecisions {
  /** Undecided candidates of the vaults where the account has vault.write now (or of one of them), newest first. */
  listMemoryCandidates(accountId: string, vaultId?: string): Promise<Listing<MemoryCandidate>>;
  /**
   * Accepted and rejected candidates of the vaults where the account has vault.write now (or of one of them), the
   * newest decision first, with who decided and when: what was decided stays visible to those who may decide.
   */
  listDecidedMemory(accountId: string, options?: { vaultId?: string }): Promise<Listing<DecidedMemoryCandidate>>;
  /** Accepts or rejects an undecided candidate (a decided one: `conflict`), recording who decided and when. */
  decideMemoryCandidate(accountId: string, candidateId: string, decision: MemoryDecision): Promise<MemoryCandidate>;
}

/** Builds the memory decision part of the administration service. */
export function memoryDecisions(ctx: AdminContext): MemoryDecisions {
  const { db } = ctx;
  const { workspaces, vaults } = ctx.deps;
  /** The vaults whose candidates the account may see: where it has vault.write now, or the one named (else `not_found`). */
  async function visibleVaults(accountId: string, vaultId: string | undefined): Promise<string[]> {
    if (vaultId !== undefined) assertId(vaultId, 'vault');
    const writable = (await vaults.listAccessibleMappings(accountId))
      .filter(({ role }) => roleAllows(role, 'vault.write'))
      .map(({ mapping }) => mapping.vaultId);
    if (vaultId === undefined) return writable;
    if (!writable.includes(vaultId)) throw notFound('vault');
    return [vaultId];
  }

  return {
    async listMemoryCandidates(accountId, vaultId) {
      return memory.listUndecided(db, await visibleVaults(accountId, vaultId));
    },
    async listDecidedMemory(accountId, options = {}) {
      return memory.listDecided(db, await visibleVaults(accountId, options.vaultId));
    },
    async decideMemoryCandidate(accountId, candidateId, decision) {
      const checked = parseDecision(decision);
      assertId(candidateId, 'memory candidate');
      return db.transaction(async (tx) => {
        const candidate = await memory.lockCandidate(tx, candidateId);
        if (!candidate) throw notFound('memory candidate');
        try {
          await workspaces.authorize(accountId, candidate.workspaceId, 'vault.write', tx);
        } catch (error) {
          // Without vault.write the candidate is not the account's to see: the same answer as an unknown one.
          throw isKgateError(error) ? notFound('memory candidate') : error;
        }
        if (candidate.status !== 'candidate') throw new KgateError('conflict', `The candidate was ${candidate.status} already.`, { status: candidate.status });
        return memory.decide(tx, candidateId, checked, accountId, ctx.clock.now());
      });
    },
  };
}
