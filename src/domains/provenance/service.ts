import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { VaultsService } from '../vaults/index.ts';
import { listEvents, type EventOrder, type ProvenanceEvent } from './store.ts';

/** Most events in one page. */
export const MAX_EVENTS_PAGE = 1000;
/** Events in a page when the caller does not say. */
export const DEFAULT_EVENTS_PAGE = 100;

/**
 * A page of events. `nextSince` is the newest seq seen (pass it as `since` to get what comes after); oldest first, it
 * continues the feed. Newest first, `nextBefore` is the oldest seq on the page (pass it as `before` for older events).
 */
export interface EventPage {
  events: ProvenanceEvent[];
  nextSince: number;
  /** Newest first only: the cursor of the next, older page (null when the page is empty). */
  nextBefore?: number | null;
  /** True when more events exist in the requested range beyond this page right now. */
  truncated: boolean;
}

/** Which events a caller asks for: a range of seq (both bounds exclusive), its order, and the page size. */
export interface EventQuery {
  /** Only events after this seq (default 0). */
  since?: number;
  /** Only events before this seq (default: none). */
  before?: number;
  /** `asc` (default): oldest first, the feed. `desc`: newest first, what changed lately. */
  order?: EventOrder;
  limit?: number;
  /** With each event's unified diff (null when it has none); off by default, so that feeds stay small. */
  diffs?: boolean;
}

/** Reading the provenance record. */
export interface ProvenanceService {
  /**
   * Events of one mapping recorded for the calling account (spec 6.2: scoped to the authenticated user and
   * mapping), in a range of seq, oldest first by default or newest first, bounded.
   */
  listEvents(actor: Actor, mappingId: string, query: EventQuery): Promise<EventPage>;
}

/** Builds the provenance service. */
export function createProvenanceService(db: Database, vaults: VaultsService): ProvenanceService {
  return {
    async listEvents(actor, mappingId, query) {
      const since = query.since ?? 0;
      const before = query.before ?? null;
      const order = query.order ?? 'asc';
      const limit = query.limit ?? DEFAULT_EVENTS_PAGE;
      if (!Number.isSafeInteger(since) || since < 0) {
        throw new KgateError('invalid_request', 'since is a non-negative integer cursor.', { field: 'since' });
      }
      if (before !== null && (!Number.isSafeInteger(before) || before < 1)) {
        throw new KgateError('invalid_request', 'before is a positive integer cursor.', { field: 'before' });
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENTS_PAGE) {
        throw new KgateError('invalid_request', `limit is an integer from 1 to ${MAX_EVENTS_PAGE}.`, { field: 'limit' });
      }
      const mapping = await vaults.resolveMapping(actor.accountId, mappingId, 'read');
      const rows = await listEvents(db, mapping.id, actor.accountId, { since, before, order, diffs: query.diffs === true }, limit + 1);
      const events = rows.slice(0, limit);
      const truncated = rows.length > limit;
      if (order === 'asc') return { events, nextSince: events[events.length - 1]?.seq ?? since, truncated };
      return { events, nextSince: events[0]?.seq ?? since, nextBefore: events[events.length - 1]?.seq ?? null, truncated };
    },
  };
}
