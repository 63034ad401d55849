import { describe, expect, it } from 'vitest';
import { contentHash } from '../../kernel/hashing.ts';
import { nameKeysOfMoves } from './link-store.ts';
import { deriveNoteIndex } from './note-index.ts';
import { notesToRewrite, planTransaction, type CandidateLink, type CanonicalAction, type PlanMode, type PlanState } from './plan-transaction.ts';
import type { StoredNote } from './store.ts';
import { MAX_LINK_REWRITE_NOTES, type NoteAction } from './transaction-contract.ts';

/** A vault as the planner sees it: every note, and each note's stored links (as upsertNotes derives them). */
function vaultOf(files: Record<string, string>) {
  const notes = Object.entries(files).map(
    ([path, content]): StoredNote => ({ id: `id:${path}`, path, pathKey: path.toLowerCase(), content, contentHash: contentHash(content), size: 0, title: path }),
  );
  const rows: CandidateLink[] = notes.flatMap((note) =>
    deriveNoteIndex(note.content).links.map((link) => ({ noteId: note.id, path: note.path, target: link.target, nameKey: link.targetNameKey })),
  );
  return { notes, rows };
}

const act = (a: NoteAction): CanonicalAction =>
  a.type === 'move-note' ? { ...a, pathKey: a.path.toLowerCase(), newPathKey: a.newPath.toLowerCase() } : { ...a, pathKey: a.path.toLowerCase() };
const move = (path: string, newPath: string, rewriteLinks = true, expectedHash?: string): NoteAction => ({
  type: 'move-note',
  path,
  newPath,
  rewriteLinks,
  ...(expectedHash ? { expectedHash } : {}),
});

/**
 * Plans as transactions.ts does: the notes at the actions' paths, then (for rewriting moves) the stored links naming
 * the moved names, a first pass that finds the notes to load, and the plan with those loaded. Also returns what the
 * first pass asked for.
 */
function plan(files: Record<string, string>, actions: NoteAction[], options: { mode?: PlanMode; candidateLimit?: number } = {}) {
  const mode = options.mode ?? 'preview';
  const { notes, rows } = vaultOf(files);
  const canonical = actions.map(act);
  const keys = new Set(canonical.flatMap((a) => (a.type === 'move-note' ? [a.pathKey, a.newPathKey] : [a.pathKey])));
  const state: PlanState = { notes: new Map(notes.filter((n) => keys.has(n.pathKey)).map((n) => [n.pathKey, n])), trash: new Map() };
  const moves = canonical.flatMap((a) => (a.type === 'move-note' && a.rewriteLinks ? [[a.path, a.newPath] as const] : []));
  if (moves.length > 0) {
    const names = new Set(nameKeysOfMoves(moves));
    const candidates = rows.filter((row) => names.has(row.nameKey));
    const limit = options.candidateLimit ?? Infinity;
    state.links = { paths: notes.map((n) => n.path), candidates: candidates.slice(0, limit), candidatesTruncated: candidates.length > limit };
  }
  const needed = notesToRewrite(canonical, state, mode);
  // Past the bound nothing is read: the stored links alone must refuse it.
  const load = needed.size <= MAX_LINK_REWRITE_NOTES ? notes.filter((n) => needed.has(n.id)) : [];
  if (state.links) state.links = { ...state.links, loaded: new Map(load.map((n) => [n.id, n])) };
  const planned = planTransaction(canonical, state, mode, { withDiff: true });
  const contentOf = (path: string) => {
    const effect = planned.find((p) => p.effect && 'write' in p.effect && p.effect.write.path === path)?.effect;
    return effect && 'write' in effect ? effect.write.content : files[path];
  };
  return { planned, results: planned.map((p) => p.result), needed: [...needed].map((id) => id.slice(3)).sort(), contentOf };
}

const FRONTMATTER = '---\nrelated: "[[Roadmap]]"\ntags:   [ plan ,  q3 ]   # odd spacing kept\n---\n';
const VAULT = {
  'Projects/Roadmap.md': '# Roadmap\n\nSee [[Glossary]] and [sibling](./Notes.md).\n',
  'Projects/Notes.md': 'Plan: [[Roadmap]]\n',
  'Home.md': `${FRONTMATTER}Start with [[Roadmap]], then [[Projects/Roadmap#Q3 goals|the Q3 goals]].\n`,
  'Daily/2024-05-01.md': '![[Roadmap]]\n\nAlso [text](Projects/Roadmap.md) and [[Roadmap.md#^b1]].\n',
  'Clients/Acme/Roadmap.md': '# Client roadmap\n',
  'Clients/Acme/Acme.md': 'Our [[Roadmap]] is separate.\n',
  'Reference/Glossary.md': '# Glossary\n',
  'Unrelated.md': 'Nothing here links to [[Glossary]].\n',
};

describe('planLinkRewrites', () => {
  it('moves without touching links unless asked', () => {
    const { results, needed } = plan(VAULT, [move('Projects/Roadmap.md', 'Archive/Roadmap 2024.md', false)]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ type: 'move-note', status: 'move', path: 'Projects/Roadmap.md', newPath: 'Archive/Roadmap 2024.md' });
    expect(results[0]!.afterRevision).toBe(results[0]!.beforeRevision);
    expect(results[0]!.diff).toBe('--- a/Projects/Roadmap.md\n+++ b/Archive/Roadmap 2024.md\n');
    expect(results[0]).not.toHaveProperty('linksRewritten');
    expect(needed).toEqual([]);
  });

  it('rewrites every link that resolved to the moved note, in its own form, and nothing else', () => {
    const { planned, results, needed, contentOf } = plan(VAULT, [move('Projects/Roadmap.md', 'Archive/Roadmap 2024.md')]);
    // The first pass reads only the notes whose stored links resolve to the moved note: not Clients/Acme/Acme.md,
    // whose [[Roadmap]] means its neighbour Clients/Acme/Roadmap.md.
    expect(needed).toEqual(['Daily/2024-05-01.md', 'Home.md', 'Projects/Notes.md']);
    expect(results.map((r) => [r.index, r.type, r.path, r.status])).toEqual([
      [0, 'move-note', 'Projects/Roadmap.md', 'move'],
      [0, 'rewrite-links', 'Daily/2024-05-01.md', 'update'],
      [0, 'rewrite-links', 'Home.md', 'update'],
      [0, 'rewrite-links', 'Projects/Notes.md', 'update'],
    ]);
    expect(contentOf('Home.md')).toBe(`${FRONTMATTER}Start with [[Roadmap 2024]], then [[Archive/Roadmap 2024#Q3 goals|the Q3 goals]].\n`);
    expect(contentOf('Daily/2024-05-01.md')).toBe('![[Roadmap 2024]]\n\nAlso [text](Archive/Roadmap%202024.md) and [[Roadmap 2024.md#^b1]].\n');
    expect(contentOf('Projects/Notes.md')).toBe('Plan: [[Roadmap 2024]]\n');
    // The moved note's relative link follows it to its new folder; its bare [[Glossary]] still resolves.
    expect(contentOf('Archive/Roadmap 2024.md')).toBe('# Roadmap\n\nSee [[Glossary]] and [sibling](../Projects/Notes.md).\n');
    expect(results[0]).toMatchObject({ linksRewritten: 1, linksSkipped: 0 });
    expect(results[0]!.afterRevision).toBe(contentHash(contentOf('Archive/Roadmap 2024.md')!));
    expect(results[0]!.diff).toContain('--- a/Projects/Roadmap.md\n+++ b/Archive/Roadmap 2024.md\n');
    const home = results.find((r) => r.path === 'Home.md')!;
    expect(home).toMatchObject({ beforeRevision: contentHash(VAULT['Home.md']), afterRevision: contentHash(contentOf('Home.md')!), linksRewritten: 2, linksSkipped: 0 });
    expect(home.diff).toContain('-Start with [[Roadmap]]');
    expect(planned.find((p) => p.result.path === 'Home.md')!.effect).toMatchObject({ kind: 'rewrite' });
  });

  it('rewrites links that the move would redirect, found by the new file name', () => {
    // [[Glossary]] from Home meant Reference/Glossary.md; Archive/Glossary.md is now the better match by length.
    const files = { 'Projects/Roadmap.md': '# Roadmap\n', 'Reference/Glossary.md': '# G\n', 'Home.md': 'See [[Glossary]].\n', 'Plan.md': '[[Roadmap]]\n' };
    const { results, contentOf, needed } = plan(files, [move('Projects/Roadmap.md', 'Archive/Glossary.md')]);
    expect(needed).toEqual(['Home.md', 'Plan.md']);
    expect(contentOf('Home.md')).toBe('See [[Reference/Glossary]].\n');
    expect(contentOf('Plan.md')).toBe('[[Archive/Glossary]]\n');
    expect(results.slice(1)).toMatchObject([
      { type: 'rewrite-links', path: 'Home.md', linksRewritten: 1 },
      { type: 'rewrite-links', path: 'Plan.md', linksRewritten: 1 },
    ]);
  });

  it('composes moves in action order: moved notes that link to each other are rewritten once, with both moves', () => {
    const files = { 'Inbox/A.md': 'A → [[B]], [up](../Top.md)\n', 'Inbox/B.md': 'B → [[Inbox/A]]\n', 'Top.md': '[[A]] [[B]]\n' };
    const { results, contentOf } = plan(files, [move('Inbox/A.md', 'Done/A.md'), move('Inbox/B.md', 'Done/Deep/B.md')]);
    expect(contentOf('Done/A.md')).toBe('A → [[B]], [up](../Top.md)\n');
    expect(contentOf('Done/Deep/B.md')).toBe('B → [[Done/A]]\n');
    expect(contentOf('Top.md')).toBe('[[A]] [[B]]\n');
    expect(results.map((r) => [r.index, r.type, r.path, r.status])).toEqual([
      [0, 'move-note', 'Inbox/A.md', 'move'],
      [1, 'move-note', 'Inbox/B.md', 'move'],
    ]);
    expect(results[1]!.afterRevision).toBe(contentHash('B → [[Done/A]]\n'));
  });

  it('refuses a rewrite of a note another action writes or deletes; a note deleted before the move is not in the way', () => {
    const files = { 'a.md': '# A\n', 'links.md': 'see [[a]]\n', 'other.md': 'x\n' };
    const hash = contentHash('see [[a]]\n');
    const written = plan(files, [move('a.md', 'b.md', true, contentHash('# A\n')), { type: 'write-note', path: 'links.md', content: 'new [[a]]\n', expectedHash: hash }], { mode: 'apply' });
    expect(written.planned[0]!.problem).toMatchObject({ code: 'conflict', detail: expect.stringContaining('links.md (action 1)') });
    expect(written.planned[0]!.effect).toBeUndefined();
    expect(written.results.filter((r) => r.type === 'rewrite-links')).toEqual([]);
    // The same refusal when the write comes first: the note's new content links to the moved note.
    const before = plan(files, [{ type: 'write-note', path: 'links.md', content: 'new [[a]]\n', expectedHash: hash }, move('a.md', 'b.md')]);
    expect(before.planned[1]!.problem?.code).toBe('conflict');
    const deletedLater = plan(files, [move('a.md', 'b.md'), { type: 'delete-note', path: 'links.md', expectedHash: hash }]);
    expect(deletedLater.planned[0]!.problem?.code).toBe('conflict');
    const deletedFirst = plan(files, [{ type: 'delete-note', path: 'links.md', expectedHash: hash }, move('a.md', 'b.md')]);
    expect(deletedFirst.planned.map((p) => p.problem)).toEqual([undefined, undefined]);
    // A new note whose links do not name the moved note is no obstacle.
    const unrelated = plan(files, [{ type: 'write-note', path: 'new.md', content: '[[other]]\n' }, move('a.md', 'b.md')]);
    expect(unrelated.results.map((r) => [r.type, r.status])).toEqual([['write-note', 'create'], ['move-note', 'move'], ['rewrite-links', 'update']]);
  });

  it(`refuses more than ${MAX_LINK_REWRITE_NOTES} rewritten notes, and an incomplete candidate list, without reading content`, () => {
    const files: Record<string, string> = { 'hub.md': '# Hub\n' };
    for (let k = 0; k <= MAX_LINK_REWRITE_NOTES; k++) files[`n/${k}.md`] = `[[hub]] ${k}\n`;
    const tooMany = plan(files, [move('hub.md', 'Hub 2.md', true, contentHash('# Hub\n'))], { mode: 'apply' });
    expect(tooMany.planned[0]!.problem).toMatchObject({ code: 'invalid_request', detail: expect.stringContaining(`${MAX_LINK_REWRITE_NOTES}`) });
    expect(tooMany.results).toHaveLength(1);
    expect(tooMany.needed).toEqual([]);
    delete files['n/0.md'];
    expect(plan(files, [move('hub.md', 'Hub 2.md')]).results).toHaveLength(MAX_LINK_REWRITE_NOTES + 1);
    const truncated = plan({ 'hub.md': '', 'x.md': '[[hub]]', 'y.md': '[[hub]]' }, [move('hub.md', 'Hub 2.md')], { candidateLimit: 1 });
    expect(truncated.planned[0]!.problem?.code).toBe('invalid_request');
  });

  it('reports links whose syntax cannot hold the new name, and leaves them as written', () => {
    const { results, contentOf } = plan({ 'csharp.md': '# C#\n', 'x.md': '[[csharp]] and [md](csharp.md)\n' }, [move('csharp.md', 'C# tips.md')]);
    expect(contentOf('x.md')).toBe('[[csharp]] and [md](C%23%20tips.md)\n');
    expect(results[1]).toMatchObject({ type: 'rewrite-links', status: 'update', linksRewritten: 1, linksSkipped: 1 });
  });

  it('a case-only rename changes no link', () => {
    const { results } = plan({ 'notes/plan.md': 'x\n', 'a.md': '[[plan]] [[notes/plan]]\n' }, [move('notes/plan.md', 'notes/Plan.md')]);
    expect(results).toEqual([expect.objectContaining({ status: 'move', newPath: 'notes/Plan.md', linksRewritten: 0, linksSkipped: 0 })]);
  });
});
