/**
 * The capability catalogue as the local adapter answers it: the same ids as the hosted runtime's getCapabilities
 * (contract V1), with the note capabilities available and everything else `hosted_only`.
 */
import type { RuntimeCapabilities, RuntimeCapability, RuntimeScope } from '../runtime-data.js';

type Family = RuntimeCapability['family'];
type Entry = readonly [id: string, title: string, family: Family, scope: RuntimeScope | null, needsModel: boolean];

const CATALOGUE: readonly Entry[] = [
  ['runtime.context', 'Runtime context', 'runtime', null, false],
  ['runtime.capabilities', 'Capabilities', 'runtime', null, false],
  ['runtime.workspace', 'Workspace', 'runtime', null, false],
  ['runtime.domain-composition', 'Domain composition', 'runtime', null, false],
  ['vault.bind', 'Bind a hosted vault', 'hosted-vault', null, false],
  ['notes.list', 'List notes', 'hosted-vault', null, false],
  ['notes.read', 'Read a note', 'hosted-vault', null, false],
  ['notes.publish', 'Publish a note', 'hosted-vault', 'notes.publish', false],
  ['notes.transactions', 'Note transactions', 'hosted-vault', 'notes.publish', false],
  ['notes.trash', 'Trash', 'hosted-vault', null, false],
  ['scopes.list', 'Available scopes', 'scopes', null, false],
  ['scopes.context', 'Scope context', 'scopes', null, false],
  ['scopes.policy', 'Effective scope policy', 'scopes', null, false],
  ['scopes.intelligence', 'Scope intelligence', 'scopes', null, false],
  ['scopes.memory', 'Scope memory', 'scopes', null, false],
  ['memory.candidates', 'Shared memory candidates', 'scopes', null, false],
  ['education.projection', 'Education projection', 'education', 'intelligence.execute', false],
  ['education.artifacts.recommend', 'Artifact recommendations', 'education', 'intelligence.execute', false],
  ['education.standards.crosswalk', 'Standards crosswalk', 'education', 'intelligence.execute', false],
  ['education.generate', 'Generation', 'education', 'intelligence.execute', true],
  ['education.generate-image', 'Image generation', 'education', 'intelligence.execute', true],
  ['education.student-guidance', 'Learner guidance', 'education', 'intelligence.execute', true],
  ['education.practice-review', 'Practice review', 'education', 'intelligence.execute', true],
  ['education.assessment-draft', 'Assessment drafting', 'education', 'intelligence.execute', true],
  ['education.quality-review', 'Quality review', 'education', 'intelligence.execute', true],
  ['education.rubric-draft', 'Rubric drafting', 'education', 'intelligence.execute', true],
  ['media.audio.store', 'Store private audio', 'media', 'media.write', false],
  ['media.audio.read', 'Play private audio', 'media', 'media.read', false],
  ['connections.manage', 'Provider connections', 'connections', 'connections.manage', false],
  ['connections.drive', 'Drive round trips', 'connections', 'connections.execute', false],
  ['connections.classroom', 'Classroom round trips', 'connections', 'connections.execute', false],
];

/** What the local adapter does itself: the context, the capabilities and the notes of its folder. */
const LOCAL = new Set(['runtime.context', 'runtime.capabilities', 'notes.list', 'notes.read', 'notes.publish', 'notes.transactions', 'notes.trash']);

/** Why a capability is not local. */
export const HOSTED_ONLY_REASON = 'available on the hosted runtime only: the local adapter works on a folder and never uploads';

/** The local adapter's getCapabilities data: no credential, so every available capability counts as granted. */
export function localCapabilities(): RuntimeCapabilities {
  const capabilities = CATALOGUE.map(([id, title, family, scope, needsModel]): RuntimeCapability => {
    const base = { id, title, family, scope, needsModel };
    return LOCAL.has(id) ? { ...base, availability: 'available' } : { ...base, availability: 'unavailable', reasonCode: 'hosted_only', reason: HOSTED_ONLY_REASON };
  });
  return { capabilities, granted: capabilities.filter((c) => c.availability === 'available').map((c) => c.id) };
}
