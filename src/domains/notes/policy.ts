import { KgateError } from '../../kernel/errors.ts';
import { noteChangeRefusal, type HostedMapping, type NoteChangeCapability } from '../vaults/index.ts';
import type { CanonicalAction } from './plan-transaction.ts';

/** Refuses to read note bodies of a device-encrypted mapping: the server never has the key. */
export function assertReadableBodies(mapping: HostedMapping): void {
  if (mapping.deviceEncrypted) {
    throw new KgateError('device_encrypted', 'Note bodies of this mapping are encrypted on the device; the server cannot read them.');
  }
}

/**
 * May a caller with `capability` make these changes to the notes of `mapping`? The mapping's own rules first (see
 * the vaults policy: read-only, pull-only, the owner's switch for agents), then the actions: with device-held
 * encryption the server cannot write bodies, so writes and link-rewriting moves are refused, while a delete, a
 * restore or a plain move changes no body and is allowed.
 */
export function assertMayChangeNotes(mapping: HostedMapping, actions: readonly CanonicalAction[], capability: NoteChangeCapability): void {
  const refusal = noteChangeRefusal(mapping, capability);
  if (refusal) throw refusal;
  if (mapping.deviceEncrypted && actions.some((a) => a.type === 'write-note' || (a.type === 'move-note' && a.rewriteLinks))) {
    throw new KgateError('device_encrypted', 'Note bodies of this mapping are encrypted on the device; the server cannot write them.');
  }
}
