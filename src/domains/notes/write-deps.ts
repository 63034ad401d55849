import type { Database } from '../../db/port.ts';
import type { VaultsService } from '../vaults/index.ts';

/** What note writers need besides their input. */
export interface NoteWriteDeps {
  db: Database;
  vaults: VaultsService;
  /** Called once a change of the vault's notes committed, before it is answered: caches forget the vault. */
  onContentChanged: (vaultId: string) => void;
}
