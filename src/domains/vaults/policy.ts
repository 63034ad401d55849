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
 * or pull-only mapping refuses every change, and an agent needs the owner's switch. A remote mapping accepts writes
 * only when all four conditions of spec 3.1 hold, whoever writes: the owner's switch for that exact mapping, not
 * pull-only, a connection with provider file-write capability, and no device-held encryption; each failing condition
 * has its own code. On a hosted mapping device-held encryption refuses only changes that write bodies; the notes
 * policy decides that per action.
 */
export function noteChangeRefusal(mapping: Mapping, capability: NoteChangeCapability): KgateError | undefined {
  if (mapping.readOnly) return new KgateError('mapping_read_only', 'This mapping is read-only; it accepts no note changes.');
  if (mapping.provider !== 'hosted') return remoteWriteRefusal(mapping);
  if (mapping.pullOnly) return new KgateError('mapping_pull_only', 'This mapping is pull-only; it accepts no note changes.');
  if (capability === 'agent' && !mapping.allowMcpNoteChanges) {
    return new KgateError('mcp_changes_disabled', 'The owner has not allowed MCP note changes on this mapping.');
  }
  return undefined;
}

/** The four conditions of spec 3.1 for writing to a remote mapping, in the order the owner would fix them. */
function remoteWriteRefusal(mapping: Mapping): KgateError | undefined {
  if (!mapping.allowMcpNoteChanges) {
    return new KgateError('mcp_changes_disabled', 'The owner has not switched on "Allow hosted MCP note changes" for this remote mapping.');
  }
  if (mapping.pullOnly) return new KgateError('mapping_pull_only', 'This remote mapping is pull-only: kgate copies from the provider and writes nothing back.');
  if (!mapping.connection || mapping.connection.status !== 'active') return disconnected();
  if (!mapping.connection.canWrite) {
    return new KgateError('provider_write_not_granted', 'The provider connection of this mapping has no file-write access; the owner reconnects it with write access.');
  }
  if (mapping.deviceEncrypted) {
    return new KgateError('device_encrypted', 'Notes of this mapping are encrypted with a device-held key; the server cannot write them.');
  }
  return undefined;
}

/** The refusal of any call on a remote mapping whose connection is gone (spec 2.1: both records are resolved). */
export function disconnected(): KgateError {
  return new KgateError('provider_disconnected', "This remote mapping's provider connection is disconnected; its owner reconnects the provider.");
}

/** Whether a remote mapping's connection may read now (hosted mappings need no connection). */
export function connectionMayRead(mapping: Mapping): boolean {
  return mapping.provider === 'hosted' || (mapping.connection?.status === 'active' && mapping.connection.canRead);
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
    // A remote mapping whose connection cannot write files is read-only whatever its switches say.
    readOnly: mapping.readOnly || mapping.pullOnly || (mapping.provider !== 'hosted' && mapping.connection?.canWrite !== true),
    writeAccess: noteChangeRefusal(mapping, 'agent') === undefined && !mapping.deviceEncrypted,
    approvalPolicy: mapping.approvalPolicy,
  };
}
