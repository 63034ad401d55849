import { KgateError } from '../../kernel/errors.ts';
import { roleAllows, type WorkspacePermission, type WorkspaceRole } from '../workspaces/index.ts';
import type { ApprovalPolicy, Mapping, MappingAccess } from './contract.ts';

/**
 * The capability under which a caller changes notes through a mapping, named by the caller's surface but decided
 * here. `direct`: the account's own developer credential (the Developer REST API). `agent`: an AI agent through the
 * hosted MCP gateway, which the owner must also have allowed on that exact mapping ("Allow hosted MCP note
 * changes", spec 2.1 and 3.1). `person`: a signed-in person on the workspace pages, including executing a proposal
 * they approved; the approval policy governs credentials, not the person approving. Every call that changes notes
 * names one; there is no default to forget.
 */
export type NoteChangeCapability = 'direct' | 'agent' | 'person';

/** How long a preview receipt lets an apply through under `preview-first` (docs/proposals.md). */
export const PREVIEW_WINDOW_MS = 30 * 60 * 1000;

/**
 * Why the mapping's approval policy refuses an apply under `capability`, or undefined when it allows it. A person on
 * the workspace pages is the approval. Under `people-approve` an agent may only propose; every other credential, under
 * `preview-first` or `people-approve`, must have previewed exactly this change (`matchedPreview`: a receipt of the
 * same credential, for the same actions against the same revisions, within PREVIEW_WINDOW_MS).
 */
export function approvalRefusal(policy: ApprovalPolicy, capability: NoteChangeCapability, matchedPreview: boolean): KgateError | undefined {
  if (capability === 'person' || policy === 'open') return undefined;
  if (policy === 'people-approve' && capability === 'agent') {
    return new KgateError(
      'approval_required',
      'The owner requires a person to approve agents\' note changes on this mapping: call propose_action with the same notes, and a person approves it in the workspace.',
      { policy, use: 'propose_action' },
    );
  }
  if (!matchedPreview) {
    return new KgateError(
      'preview_required',
      `The owner requires a preview before every apply on this mapping: preview exactly these changes with the same credential (within ${PREVIEW_WINDOW_MS / 60000} minutes), then apply them against the hashes the preview answered.`,
      { policy, windowSeconds: PREVIEW_WINDOW_MS / 1000 },
    );
  }
  return undefined;
}

/** The workspace permission that an access through a mapping needs. */
export function permissionFor(access: MappingAccess): WorkspacePermission {
  return access === 'write' ? 'vault.write' : 'vault.read';
}

/** May a member with `role` use a mapping of the workspace for `access`? Non-members (no role) may not. */
export function mayAccessMapping(role: WorkspaceRole | undefined, access: MappingAccess): boolean {
  return roleAllows(role, permissionFor(access));
}

/**
 * Why a mapping refuses note changes under `capability`, or undefined when it accepts them (spec 3.1): a read-only
 * or pull-only mapping refuses every change, and an agent needs the owner's switch. Device-held encryption refuses
 * only changes that write bodies; the notes policy decides that per action.
 */
export function noteChangeRefusal(mapping: Mapping, capability: NoteChangeCapability): KgateError | undefined {
  if (mapping.readOnly || mapping.pullOnly) {
    return new KgateError('mapping_read_only', 'This mapping is read-only; it accepts no note changes.');
  }
  if (capability === 'agent' && !mapping.allowMcpNoteChanges) {
    return new KgateError('mcp_changes_disabled', 'The owner has not allowed MCP note changes on this mapping.');
  }
  return undefined;
}

/** What discovery (`list_vaults`, `GET /api/dev/mappings`) tells a caller about changing a mapping's notes. */
export interface MappingWriteSummary {
  /** No change is accepted through this mapping by anyone (read-only or pull-only). */
  readOnly: boolean;
  /** An agent may change note bodies through this mapping: no refusal for `agent`, and bodies are not device-encrypted. */
  writeAccess: boolean;
  /** The owner's approval policy: under `people-approve` an agent proposes (propose_action) instead of applying. */
  approvalPolicy: ApprovalPolicy;
}

/** Summarizes, with the same rules that refuse changes, what an agent may change through a mapping. */
export function mappingWriteSummary(mapping: Mapping): MappingWriteSummary {
  return {
    readOnly: mapping.readOnly || mapping.pullOnly,
    writeAccess: noteChangeRefusal(mapping, 'agent') === undefined && !mapping.deviceEncrypted,
    approvalPolicy: mapping.approvalPolicy,
  };
}
