import type { Database } from '../../db/port.ts';
import type { Actor } from '../../kernel/principal.ts';
import { assertReadableBodies } from '../notes/index.ts';
import type { VaultsService } from '../vaults/index.ts';
import type { SearchPage, SearchRequest, SearchService } from './contract.ts';
import { createSearchPageCache, type SearchPageCache } from './page-cache.ts';
import { answerPage } from './results-page.ts';
import { checkSearchRequest } from './search-request.ts';
import { createVaultIndexCache, type VaultIndexOptions } from './vault-index-cache.ts';

/**
 * Builds the search service. Each vault's notes are indexed in memory on first search, from the search text
 * stored when changes were applied, and every search first brings the index up to the vault's content version
 * (one small query when nothing changed), so results always reflect committed writes, whichever process made them.
 * Each search then runs as a reader of the index, so compaction never renumbers documents under it.
 */
export function createSearchService(
  db: Database,
  vaults: VaultsService,
  options: VaultIndexOptions & { pages?: SearchPageCache } = {},
): SearchService {
  const indexes = createVaultIndexCache(db, options);
  const pages = options.pages ?? createSearchPageCache();
  return {
    async searchNotes(actor: Actor, mappingId: string, request: SearchRequest): Promise<SearchPage> {
      const search = checkSearchRequest(request);
      // The caller's authority over the mapping and the vault's content version (from memory when known there).
      const { mapping, contentVersion } = await vaults.resolveHostedVault(actor.accountId, mappingId, 'read');
      assertReadableBodies(mapping);
      // The same request at the same content version has the same answer, whoever asks it.
      const answered = pages.get(mapping.vaultId, contentVersion, search);
      if (answered) return answered;
      const index = await indexes.current(mapping.vaultId, contentVersion);
      const page = await index.reading(() => answerPage(db, index, search));
      pages.set(mapping.vaultId, contentVersion, search, page);
      return page;
    },
  };
}
