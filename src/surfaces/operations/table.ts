import { openAppView } from './app-view-operations.ts';
import { applyNoteDeletions, applyNoteWrites, createOrAppendNote, previewNoteDeletions, previewNoteWrites } from './agent-write-operations.ts';
import { listEvents } from './event-operations.ts';
import { queryGraphRelations } from './graph-operations.ts';
import { getVaultSchema, translateCanvas } from './knowledge-operations.ts';
import { KNOWLEDGE_READ_OPERATIONS } from './knowledge-read-operations.ts';
import { EDUCATION_ANALYSIS_OPERATIONS } from './education-analysis-operations.ts';
import { EDUCATION_CONNECTION_OPERATIONS } from './education-connection-operations.ts';
import { EDUCATION_DRAFT_OPERATIONS } from './education-drafts-operations.ts';
import { EDUCATION_GENERATE_OPERATIONS } from './education-generate-operations.ts';
import { EDUCATION_GUIDANCE_OPERATIONS } from './education-guidance-operations.ts';
import { EDUCATION_IMAGE_OPERATIONS } from './education-image-operations.ts';
import { EDUCATION_MEDIA_OPERATIONS } from './education-media-operations.ts';
import { EDUCATION_PROJECTION_OPERATIONS } from './education-projection-operations.ts';
import { EDUCATION_RUBRIC_OPERATIONS } from './education-rubric-operations.ts';
import { FILE_OPERATIONS } from './file-operations.ts';
import { INTELLIGENCE_OPERATIONS } from './intelligence-operations.ts';
import { getNoteContent, listNotes, listTrash, readNote } from './note-read-operations.ts';
import { deleteNote, runNoteTransaction, writeNote } from './note-write-operations.ts';
import type { AnyOperation } from './operation.ts';
import { PROPOSAL_OPERATIONS } from './proposal-operations.ts';
import { RELATION_OPERATIONS } from './relation-operations.ts';
import { RUNTIME_OPERATIONS } from './runtime-operations.ts';
import { SCOPE_OPERATIONS } from './scope-operations.ts';
import { searchNotes } from './search-operations.ts';
import { SYNTHESIS_OPERATIONS } from './synthesis-operations.ts';
import { TRACE_OPERATIONS } from './trace-operations.ts';
import { listMappings } from './vault-operations.ts';
import { VIEW_OPERATIONS } from './view-operations.ts';

/**
 * The operation table: every operation kgate serves, once. The Developer REST API (its routes and OpenAPI document)
 * and the MCP gateway (`tools/list` and `tools/call`) are derived from it, in this order: the six published-intelligence
 * tools first (spec 4.2's order; the product-only endpoint serves only them), then discovery, then
 * a link to the workspace, finding, reading and following links, the provenance feed, changing notes, knowledge from
 * vault files, the scope-bound knowledge reads (records, relations, saved views and findings, the living brief,
 * execution traces), proposals, the management of context scopes, and the operations only the Product Runtime serves.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  ...INTELLIGENCE_OPERATIONS,
  listMappings,
  openAppView,
  searchNotes,
  listNotes,
  listTrash,
  readNote,
  getNoteContent,
  queryGraphRelations,
  listEvents,
  writeNote,
  deleteNote,
  runNoteTransaction,
  previewNoteWrites,
  applyNoteWrites,
  previewNoteDeletions,
  applyNoteDeletions,
  createOrAppendNote,
  translateCanvas,
  getVaultSchema,
  ...KNOWLEDGE_READ_OPERATIONS,
  ...FILE_OPERATIONS,
  ...RELATION_OPERATIONS,
  ...VIEW_OPERATIONS,
  ...SYNTHESIS_OPERATIONS,
  ...TRACE_OPERATIONS,
  ...PROPOSAL_OPERATIONS,
  ...SCOPE_OPERATIONS,
  ...RUNTIME_OPERATIONS,
  ...EDUCATION_PROJECTION_OPERATIONS,
  ...EDUCATION_ANALYSIS_OPERATIONS,
  ...EDUCATION_MEDIA_OPERATIONS,
  ...EDUCATION_CONNECTION_OPERATIONS,
  ...EDUCATION_GENERATE_OPERATIONS,
  ...EDUCATION_DRAFT_OPERATIONS,
  ...EDUCATION_RUBRIC_OPERATIONS,
  ...EDUCATION_IMAGE_OPERATIONS,
  ...EDUCATION_GUIDANCE_OPERATIONS,
];
