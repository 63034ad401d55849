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
  // A record whose substance did not change keeps its version (no event; its evidence is updated); an added or
  // altered one is a new version; an altered or removed one ends the version it had.
  const touched = new Set(changes.map((c) => c.recordId));
  const current = records.map((record) => {
    const version = touched.has(record.id) ? undefined : before?.versions.get(record.id);
    return version ? { record, seq: version.seq, knownFrom: version.knownFrom } : { record, seq: null, knownFrom };
  });
  const previous = new Map((before?.records ?? []).map((r) => [r.id, r]));
  const ended = changes.flatMap((c) => {
    const record = c.type === 'record.added' ? undefined : previous.get(c.recordId);
    const version = record ? before?.versions.get(record.id) : undefined;
    return record && version ? [{ record, version }] : [];
  });
  return { path, revision: after?.revision ?? null, current, changes, ended };
}

