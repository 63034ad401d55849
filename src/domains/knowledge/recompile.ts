import { compileNote } from './compile.ts';
import { knowledgeChanges } from './changes.ts';
import type { CompiledNote, NoteRecompiled } from './store.ts';

/**
 * The new compiled state of one note from its last one: nothing when it is the same revision, else its records, the
 * change events, and which record versions end and begin. `force` recompiles the same revision (by newer rules).
 */
export function recompile(
  path: string,
  before: CompiledNote | undefined,
  after: { revision: string; content: string } | null,
  knownFrom: Date | null,
  options: { force?: boolean } = {},
): NoteRecompiled | undefined {
  if (after && before?.revision === after.revision && !options.force) return undefined;
  if (!after && !before) return undefined;
  const records = after ? compileNote(path, after.revision, after.content) : [];
  const changes = knowledgeChanges(path, before ?? null, after ? { revision: after.revision, records } : null);
  // A record whose substance did not change keeps its version (no event); an added or altered one gets a new one.
  const touched = new Set(changes.map((c) => c.recordId));
  const versioned = records.filter((r) => touched.has(r.id));
  const retired = changes.filter((c) => c.type !== 'record.added').map((c) => c.recordId);
  return { path, revision: after?.revision ?? null, records, changes, retired, versioned, knownFrom };
}

