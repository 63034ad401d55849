/**
 * Saved knowledge views (versioned declarative queries over a context scope's knowledge records), watches that run
 * a view when a change touches its scope, and the findings they record with the review state people give them
 * (docs/views.md).
 */
export {
  DEFAULT_VIEW_LIMIT,
  DEFAULT_VIEW_STATUSES,
  FINDING_CHANGES,
  FINDING_STATES,
  FindingSchema,
  MAX_DEFINITION_BYTES,
  MAX_FINDINGS_PER_WATCH,
  MAX_VERSIONS_PER_VIEW,
  MAX_VIEW_NAME_LENGTH,
  MAX_VIEWS_PER_SCOPE,
  MAX_WATCH_MATCHES,
  MAX_WATCHES_PER_SCOPE,
  REVIEW_STATES,
  VIEW_KINDS,
  VIEW_SORTS,
  VIEW_STATUSES,
  ViewDefinitionSchema,
  ViewRecordSchema,
} from './contract.ts';
export type {
  Finding,
  FindingState,
  ReviewState,
  SavedView,
  ViewDefinition,
  ViewDefinitionInput,
  ViewKind,
  ViewRecord,
  ViewStatus,
  ViewVersion,
  Watch,
} from './contract.ts';
export { createViewsService } from './service.ts';
export type { FindingsRequest, ViewAt, ViewChangeOptions, ViewInput, ViewQuery, ViewsService } from './service.ts';
