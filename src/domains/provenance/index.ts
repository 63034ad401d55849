/** Provenance: the append-only record of every applied change, read back as an ordered event feed. */
export { EventKindSchema } from './contract.ts';
export type { EventKind, NewProvenanceEvent } from './contract.ts';
export { appendEvents } from './store.ts';
export type { EventOrder, ProvenanceEvent } from './store.ts';
export { DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE, createProvenanceService } from './service.ts';
export type { EventPage, EventQuery, ProvenanceService } from './service.ts';
