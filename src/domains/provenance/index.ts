/** Provenance: the append-only record of every applied change, read back as an ordered event feed. */
export { EventKindSchema } from './contract.ts';
export type { EventKind, NewProvenanceEvent } from './contract.ts';
export { appendEvents } from './store.ts';
