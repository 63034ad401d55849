import type { Actor } from '../../kernel/principal.ts';
import type { NewProvenanceEvent } from '../provenance/index.ts';
import type { HostedMapping } from '../vaults/index.ts';

/** Who changed a note, through which mapping: the fields every provenance event of a note change starts with. */
export function changedBy(
  actor: Actor,
  mapping: HostedMapping,
): Pick<NewProvenanceEvent, 'mappingId' | 'vaultId' | 'accountId' | 'credentialKind' | 'credentialId' | 'client'> {
  return {
    mappingId: mapping.id,
    vaultId: mapping.vaultId,
    accountId: actor.accountId,
    credentialKind: actor.credentialKind,
    credentialId: actor.credentialId,
    client: actor.client,
  };
}
