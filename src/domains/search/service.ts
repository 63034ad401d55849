import type { Database } from '../../db/port.ts';
import type { Actor } from '../../kernel/principal.ts';
import { assertReadableBodies } from '../notes/index.ts';
import type { VaultsService } from '../vaults/index.ts';
import type { SearchPage, SearchRequest, SearchService } from './contract.ts';
import { answerPage } from './results-page.ts';
import { checkSearchRequest } from './search-request.ts';
import { createVaultIndexCache, type VaultIndexOptions } from './vault-index-cache.ts';

/**
 * Builds the search service. Each vault's notes are indexed in memory on first search, from the search text
 * stored when changes were applied, and every search first brings the index up to the vault's content version
 * (one small query when nothing changed), so results always reflect committed writes, whichever process made them.
 * Each search then runs as a reader of the index, so compaction never renumbers documents under it.
 */
export function createSearchService(db: Database, vaults: VaultsService, options: VaultIndexOptions = {}): SearchService {
  const indexes = createVaultIndexCache(db, options);
  return {
    async searchNotes(actor: Actor, mappingId: string, request: SearchRequest): Promise<SearchPage> {
      const search = checkSearchRequest(request);
      // One query resolves the caller's authority over the mapping and the vault's content version.
      const { mapping, contentVersion } = await vaults.resolveHostedVault(actor.accountId, mappingId, 'read');
      assertReadableBodies(mapping);
      const index = await indexes.current(mapping.vaultId, contentVersion);
      return index.reading(() => answerPage(db, index, search));
    },
  };
}
