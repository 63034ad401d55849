import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { VaultsService } from '../vaults/index.ts';
import { listEvents, type ProvenanceEvent } from './store.ts';

/** Most events in one page. */
export const MAX_EVENTS_PAGE = 1000;
/** Events in a page when the caller does not say. */
export const DEFAULT_EVENTS_PAGE = 100;

/** A page of events; `nextSince` is the cursor to pass as `since` for the next page. */
export interface EventPage {
  events: ProvenanceEvent[];
  nextSince: number;
  /** True when more events exist after this page right now. */
  truncated: boolean;
}

/** Reading the provenance record. */
export interface ProvenanceService {
  /**
   * Events of one mapping recorded for the calling account (spec 6.2: scoped to the authenticated user and
   * mapping), after the `since` cursor, oldest first, bounded.
   */
  listEvents(actor: Actor, mappingId: string, options: { since?: number; limit?: number }): Promise<EventPage>;
}

/** Builds the provenance service. */
export function createProvenanceService(db: Database, vaults: VaultsService): ProvenanceService {
  return {
    async listEvents(actor, mappingId, options) {
      const since = options.since ?? 0;
      const limit = options.limit ?? DEFAULT_EVENTS_PAGE;
      if (!Number.isSafeInteger(since) || since < 0) {
        throw new KgateError('invalid_request', 'since is a non-negative integer cursor.', { field: 'since' });
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENTS_PAGE) {
        throw new KgateError('invalid_request', `limit is an integer from 1 to ${MAX_EVENTS_PAGE}.`, { field: 'limit' });
      }
      const mapping = await vaults.resolveMapping(actor.accountId, mappingId, 'read');
      const rows = await listEvents(db, mapping.id, actor.accountId, since, limit + 1);
      const events = rows.slice(0, limit);
      return { events, nextSince: events[events.length - 1]?.seq ?? since, truncated: rows.length > limit };
    },
  };
}
