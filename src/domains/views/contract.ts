import { z } from 'zod';
import { EvidenceSchema, MAX_KNOWLEDGE_LIMIT, RELATION_KEYS } from '../knowledge/index.ts';

// Saved knowledge views, watches and findings (docs/views.md): the shapes they are defined and answered with.

/** Most views one context scope holds. */
export const MAX_VIEWS_PER_SCOPE = 50;
/** Most versions one view has; a view at the bound takes no new version (make a new view). */
export const MAX_VERSIONS_PER_VIEW = 100;
/** Longest view name. */
export const MAX_VIEW_NAME_LENGTH = 100;
/** Most watches one context scope holds. */
export const MAX_WATCHES_PER_SCOPE = 20;
/** Most records a watch compares between runs; a view matching more records records no findings (over_limit). */
export const MAX_WATCH_MATCHES = 500;
/** Most findings one watch keeps; the oldest dismissed or resolved make room, else new findings are dropped and counted. */
export const MAX_FINDINGS_PER_WATCH = 500;
/** Largest definition, as canonical JSON (every field is bounded already; this bounds what a form or script sends). */
export const MAX_DEFINITION_BYTES = 4096;
/** Default number of records a view answers per page. */
export const DEFAULT_VIEW_LIMIT = 50;

/** The record kinds a view reads. */
export const VIEW_KINDS = ['decision', 'commitment', 'question', 'assertion', 'relation'] as const;
/** A record kind a view reads. */
export type ViewKind = (typeof VIEW_KINDS)[number];

/**
 * The statuses a view filters by: a decision's (what a person decided, or candidate), a commitment's (open, closed)
 * and a question's (open, answered). Assertions and relations have none and are not filtered by status.
 */
export const VIEW_STATUSES = ['confirmed', 'superseded', 'rejected', 'candidate', 'open', 'closed', 'answered'] as const;
/** See VIEW_STATUSES. */
export type ViewStatus = (typeof VIEW_STATUSES)[number];
/** The statuses a view answers when its definition names none: what is current or still to do. */
export const DEFAULT_VIEW_STATUSES: readonly ViewStatus[] = ['confirmed', 'superseded', 'candidate', 'open'];

/** How a view orders its records (each then by path and record id, so that the order is total). */
export const VIEW_SORTS = ['path', 'due', 'title'] as const;

const NoteDate = z.iso.date();

/**
 * A view's definition: a small declarative query over the current knowledge records of its scope (no SQL from
 * callers). Every field narrows; a filter on a field applies to the kinds that have it (owner and due dates to
 * commitments, entityType to assertions, relationTypes to relations) and lets the other kinds through.
 */
export const ViewDefinitionSchema = z.strictObject({
  kinds: z.array(z.enum(VIEW_KINDS)).min(1).max(VIEW_KINDS.length).describe('The record kinds to answer'),
  statuses: z
    .array(z.enum(VIEW_STATUSES))
    .min(1)
    .max(VIEW_STATUSES.length)
    .optional()
    .describe('Statuses of decisions, commitments and questions to answer; default confirmed, superseded, candidate and open'),
  text: z.string().trim().min(1).max(200).optional().describe("Only records whose title or text (an assertion's property and value, a relation's target) contains this, ignoring case"),
  owner: z.string().trim().min(1).max(200).optional().describe('Commitments of this owner only (ignoring case)'),
  dueAfter: NoteDate.optional().describe('Commitments due on or after this date only (YYYY-MM-DD)'),
  dueBefore: NoteDate.optional().describe('Commitments due on or before this date only (YYYY-MM-DD)'),
  entityType: z.string().trim().min(1).max(200).optional().describe('Assertions about entities of this type only'),
  relationTypes: z.array(z.enum(RELATION_KEYS)).min(1).max(RELATION_KEYS.length).optional().describe('Relations of these types only'),
  sort: z.enum(VIEW_SORTS).optional().describe('path (default), due (soonest first, undated last) or title; then path and record id'),
  limit: z.number().int().min(1).max(MAX_KNOWLEDGE_LIMIT).optional().describe(`Records per page, 1 to ${MAX_KNOWLEDGE_LIMIT}; default ${DEFAULT_VIEW_LIMIT}`),
});
/** See ViewDefinitionSchema: as a caller writes it. */
export type ViewDefinitionInput = z.input<typeof ViewDefinitionSchema>;

/** A definition as stored: validated, lists deduplicated and sorted, defaults written out. */
export interface ViewDefinition {
  kinds: ViewKind[];
  statuses: ViewStatus[];
  text?: string;
  owner?: string;
  dueAfter?: string;
  dueBefore?: string;
  entityType?: string;
  relationTypes?: string[];
  sort: (typeof VIEW_SORTS)[number];
  limit: number;
}

/** A record as a view answers it: the fields every kind shares, then each kind's own (null where it has none). */
export const ViewRecordSchema = z.object({
  id: z.string(),
  kind: z.enum(VIEW_KINDS),
  title: z.string().describe("A decision's title, a commitment's or question's text, an assertion's entity and property, a relation's type and target"),
  status: z.enum(VIEW_STATUSES).nullable().describe('Decisions: what a person decided (candidate: nobody confirmed it); commitments: open or closed; questions: open or answered'),
  owner: z.string().nullable(),
  due: z.string().nullable(),
  statusInNote: z.string().nullable().describe("A decision's status as its note states it: not authority"),
  subject: z.string().nullable(),
  entityType: z.string().nullable(),
  entityId: z.string().nullable(),
  property: z.string().nullable(),
  value: z.unknown().describe("An assertion's value as the note states it; null for other kinds"),
  relationType: z.string().nullable(),
  target: z.string().nullable(),
  knownFrom: z.iso.datetime().nullable().describe('When this replica first stored the change that made this version; null before receipts existed'),
  evidence: EvidenceSchema,
});
/** See ViewRecordSchema. */
export type ViewRecord = z.infer<typeof ViewRecordSchema>;

/** One version of a view, as stored: never changed once made. */
export interface ViewVersion {
  viewId: string;
  version: number;
  name: string;
  definition: ViewDefinition;
  createdBy: string | null;
  createdAt: Date;
}

/** A saved view: its id, current name and latest version, in one context scope. */
export interface SavedView {
  id: string;
  mappingId: string;
  scopeId: string;
  name: string;
  latestVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A watch of a view, with what its runs left. */
export interface Watch {
  id: string;
  viewId: string;
  viewName: string;
  /** The version it runs; null: the view's latest. */
  pinnedVersion: number | null;
  createdAt: Date;
  evaluatedAt: Date;
  overLimit: boolean;
  droppedFindings: number;
  /** Findings it holds by review state. */
  counts: Record<FindingState, number>;
}

/** The review states of a finding; only a person moves one, on the workspace page. */
export const FINDING_STATES = ['new', 'acknowledged', 'dismissed', 'resolved'] as const;
/** See FINDING_STATES. */
export type FindingState = (typeof FINDING_STATES)[number];
/** The states a person may move a finding to (new is where every finding starts). */
export const REVIEW_STATES = ['acknowledged', 'dismissed', 'resolved'] as const;
/** See REVIEW_STATES. */
export type ReviewState = (typeof REVIEW_STATES)[number];

/** What a finding says happened between two runs of its watch. */
export const FINDING_CHANGES = ['matched', 'changed', 'unmatched'] as const;

/** A finding as the tool and the pages answer it. */
export const FindingSchema = z.object({
  id: z.uuid(),
  watchId: z.uuid(),
  viewId: z.uuid(),
  viewName: z.string(),
  viewVersion: z.number().int().describe('The version of the view the run used'),
  change: z.enum(FINDING_CHANGES).describe('matched: the record began to match the view; changed: it still matches but reads differently; unmatched: it stopped matching (or is gone)'),
  record: ViewRecordSchema.describe('The record as the run saw it (for unmatched: as last seen matching), with its evidence'),
  foundAt: z.iso.datetime(),
  state: z.enum(FINDING_STATES),
  stateChangedAt: z.iso.datetime().nullable().describe('When a person last moved its state; null while new'),
});
/** See FindingSchema. */
export type Finding = z.infer<typeof FindingSchema>;
