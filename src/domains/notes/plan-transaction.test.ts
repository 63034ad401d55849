import { describe, expect, it } from 'vitest';
import { contentHash } from '../../kernel/hashing.ts';
import { planTransaction, type CanonicalAction, type PlanState } from './plan-transaction.ts';
import type { StoredNote } from './store.ts';
import type { TrashEntry } from './trash-store.ts';
import type { NoteAction } from './transaction-contract.ts';

function note(path: string, content: string): StoredNote {
  return { id: `id-${path}`, path, pathKey: path.toLowerCase(), content, contentHash: contentHash(content), size: Buffer.byteLength(content), title: path };
}

const existing = note('a.md', 'old\n');
const trashed: TrashEntry = {
  id: '01a1fc00-0000-7000-8000-000000000001',
  originalPath: 'gone.md',
  content: 'was here\n',
  contentHash: contentHash('was here\n'),
  size: 9,
  title: 'gone',
  deletedAt: new Date(0),
  deletedBy: 'someone',
  restoredAt: null,
};
const state: PlanState = { notes: new Map([[existing.pathKey, existing]]), trash: new Map([[trashed.id, trashed]]) };
const act = (a: NoteAction): CanonicalAction =>
  a.type === 'move-note' ? { ...a, pathKey: a.path.toLowerCase(), newPathKey: a.newPath.toLowerCase() } : { ...a, pathKey: a.path.toLowerCase() };

describe('planTransaction', () => {
  it('creates, updates with the right hash, and reports no-ops', () => {
    const [create, update, noop] = planTransaction(
      [
        act({ type: 'write-note', path: 'new.md', content: 'hi\n' }),
        act({ type: 'write-note', path: 'a.md', content: 'new\n', expectedHash: existing.contentHash }),
        act({ type: 'write-note', path: 'a.md', content: 'old\n', expectedHash: existing.contentHash }),
      ],
      state,
      'apply',
      { withDiff: true },
    );
    expect(create!.result).toMatchObject({ status: 'create', beforeRevision: null, afterRevision: contentHash('hi\n') });
    expect(create!.result.diff).toContain('+hi');
    expect(update!.result).toMatchObject({ status: 'update', beforeRevision: existing.contentHash });
    expect(update!.result.diff).toContain('-old\n+new');
    expect(noop!.result.status).toBe('no-op');
    expect(noop!.effect).toBeUndefined();
  });

  it('lets a preview omit the hash and learn it from beforeRevision, but not an apply', () => {
    const action = act({ type: 'write-note', path: 'a.md', content: 'x' });
    const [preview] = planTransaction([action], state, 'preview', { withDiff: false });
    expect(preview!.result).toMatchObject({ status: 'update', beforeRevision: existing.contentHash });
    expect(preview!.problem).toBeUndefined();
    const [apply] = planTransaction([action], state, 'apply', { withDiff: false });
    expect(apply!.problem?.code).toBe('precondition_required');
    expect(apply!.effect).toBeUndefined();
  });

  it('refuses stale hashes, including a hash for a note that does not exist', () => {
    const [stale, ghost] = planTransaction(
      [
        act({ type: 'write-note', path: 'a.md', content: 'x', expectedHash: contentHash('other') }),
        act({ type: 'write-note', path: 'ghost.md', content: 'x', expectedHash: contentHash('x') }),
      ],
      state,
      'preview',
      { withDiff: false },
    );
    expect(stale!.result.status).toBe('conflict');
    expect(stale!.problem?.code).toBe('stale_revision');
    expect(ghost!.problem?.code).toBe('stale_revision');
  });

  it('deletes into the trash with a new trash id, and refuses missing notes', () => {
    const [deleted, missing] = planTransaction(
      [act({ type: 'delete-note', path: 'a.md', expectedHash: existing.contentHash }), act({ type: 'delete-note', path: 'nope.md' })],
      state,
      'apply',
      { withDiff: false },
    );
    expect(deleted!.result).toMatchObject({ status: 'delete', beforeRevision: existing.contentHash, afterRevision: null });
    expect(deleted!.effect).toMatchObject({ kind: 'delete', trashId: deleted!.result.trashId });
    expect(missing!.problem?.code).toBe('not_found');
  });

  it('restores from the trash to the original path only, and never over a live note', () => {
    const [restored] = planTransaction([act({ type: 'restore-note', trashId: trashed.id, path: 'gone.md' })], state, 'apply', { withDiff: false });
    expect(restored!.result).toMatchObject({ status: 'restore', afterRevision: trashed.contentHash, trashId: trashed.id });
    const [wrongPath] = planTransaction([act({ type: 'restore-note', trashId: trashed.id, path: 'elsewhere.md' })], state, 'apply', { withDiff: false });
    expect(wrongPath!.problem?.code).toBe('invalid_request');
    const occupied: PlanState = { ...state, notes: new Map([...state.notes, ['gone.md', note('gone.md', 'new life\n')]]) };
    const [blocked] = planTransaction([act({ type: 'restore-note', trashId: trashed.id, path: 'gone.md' })], occupied, 'apply', { withDiff: false });
    expect(blocked!.problem?.code).toBe('conflict');
    const used: PlanState = { ...state, trash: new Map([[trashed.id, { ...trashed, restoredAt: new Date() }]]) };
    const [again] = planTransaction([act({ type: 'restore-note', trashId: trashed.id, path: 'gone.md' })], used, 'apply', { withDiff: false });
    expect(again!.problem?.code).toBe('not_found');
  });

  it('moves a note: same content, new path, and refuses a missing or stale source and a taken new path', () => {
    const taken: PlanState = { ...state, notes: new Map([...state.notes, ['b.md', note('b.md', 'bee\n')]]) };
    const [moved, missing, stale, occupied, noHash] = planTransaction(
      [
        act({ type: 'move-note', path: 'A.md', newPath: 'x/a2.md', expectedHash: existing.contentHash, rewriteLinks: false }),
        act({ type: 'move-note', path: 'nope.md', newPath: 'nope2.md', rewriteLinks: false }),
        act({ type: 'move-note', path: 'a.md', newPath: 'c.md', expectedHash: contentHash('other'), rewriteLinks: false }),
        act({ type: 'move-note', path: 'a.md', newPath: 'B.md', expectedHash: existing.contentHash, rewriteLinks: false }),
        act({ type: 'move-note', path: 'a.md', newPath: 'd.md', rewriteLinks: false }),
      ],
      taken,
      'apply',
      { withDiff: true },
    );
    // The stored path is reported (not the requested letter case), and the hash does not change.
    expect(moved!.result).toMatchObject({ type: 'move-note', path: 'a.md', newPath: 'x/a2.md', status: 'move', beforeRevision: existing.contentHash, afterRevision: existing.contentHash });
    expect(moved!.result.diff).toBe('--- a/a.md\n+++ b/x/a2.md\n');
    expect(moved!.effect).toMatchObject({ kind: 'move', note: { id: existing.id }, write: { path: 'x/a2.md', pathKey: 'x/a2.md', content: 'old\n', title: 'a2' } });
    expect(missing!.problem?.code).toBe('not_found');
    expect(stale!.problem?.code).toBe('stale_revision');
    expect(occupied!.problem).toMatchObject({ code: 'conflict', detail: expect.stringContaining('b.md') });
    expect(noHash!.problem?.code).toBe('precondition_required');
    for (const refused of [missing, stale, occupied, noHash]) {
      expect(refused!.result.status).toBe('conflict');
      expect(refused!.effect).toBeUndefined();
    }
  });

  it('renames by letter case only, and a move to where the note is is a no-op', () => {
    const [renamed] = planTransaction([act({ type: 'move-note', path: 'a.md', newPath: 'A.md', rewriteLinks: false })], state, 'preview', { withDiff: false });
    expect(renamed!.result).toMatchObject({ status: 'move', path: 'a.md', newPath: 'A.md' });
    expect(renamed!.effect).toMatchObject({ kind: 'move', write: { path: 'A.md', pathKey: 'a.md' } });
    const [same] = planTransaction([act({ type: 'move-note', path: 'A.md', newPath: 'a.md', rewriteLinks: false })], state, 'preview', { withDiff: false });
    expect(same!.result.status).toBe('no-op');
    expect(same!.effect).toBeUndefined();
  });
});
