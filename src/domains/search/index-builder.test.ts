import { describe, expect, it } from 'vitest';
import { generateSyntheticVault } from '../../../bench/vault-generator.ts';
import { Slices } from '../../kernel/slices.ts';
import { deriveNoteIndex } from '../notes/note-index.ts';
import { IndexBuilder } from './index-builder.ts';
import { VaultSearchIndex, type IndexedNote } from './vault-index.ts';

// Slices of 0 ms: every step that may pause does, so the slicing itself is exercised.
const slices = () => new Slices(0);

function syntheticNotes(count: number): IndexedNote[] {
  return [...generateSyntheticVault({ notes: count, seed: 7 })].map((note, k) => ({
    noteId: `n${k}`,
    path: note.path,
    title: note.path.split('/').pop()!.replace(/\.md$/, ''),
    tagKeys: k % 3 === 0 ? ['project'] : [],
    searchText: deriveNoteIndex(note.content).searchText,
  }));
}

const HANDWRITTEN: IndexedNote[] = [
  { noteId: 'a', path: 'Projects/Offline Sync.md', title: 'Offline Sync', tagKeys: ['project'], searchText: 'sync works offline, sync later' },
  { noteId: 'b', path: 'People/Ana.md', title: 'Ana', tagKeys: [], searchText: 'Ana leads offline work. Café, cafe and CAFÉ are one word.' },
  { noteId: 'c', path: 'Empty.md', title: 'Empty', tagKeys: [], searchText: '' },
];

async function builtBoth(notes: readonly IndexedNote[], maxKeptTextChars?: number) {
  const upserted = new VaultSearchIndex(3, maxKeptTextChars);
  for (const note of notes) upserted.upsert(note);
  // A hint far below the real count: the builder must go on into new blocks.
  const builder = new IndexBuilder(1, maxKeptTextChars);
  for (const note of notes) builder.add(note);
  const texts = builder.searchTexts();
  const built = await VaultSearchIndex.fromState(await builder.finish(3, slices()), slices(), maxKeptTextChars, texts);
  return { upserted, built };
}

describe('building an index in one go', () => {
  it('gives the same index as adding the notes one by one: words, postings, lengths, order', async () => {
    for (const notes of [HANDWRITTEN, syntheticNotes(300)]) {
      const { upserted, built } = await builtBoth(notes);
      const [a, b] = [await upserted.exportState(slices()), await built.exportState(slices())];
      // Word order is the order of first use in both; compare by word, so that the test says which word differs.
      const postingsOf = (state: typeof a) =>
        new Map(state.words.map((word, k) => [word, [...state.docNumbers.subarray(state.offsets[k], state.offsets[k + 1])].map((doc, i) => [doc, state.packed[state.offsets[k]! + i], state.firstBody[state.offsets[k]! + i]])]));
      expect(b.docs).toEqual(a.docs);
      expect(b.words.length).toBe(a.words.length);
      expect(postingsOf(b)).toEqual(postingsOf(a));
      expect(b.words.length).toBeGreaterThan(notes === HANDWRITTEN ? 10 : 500);
    }
  });

  it('ranks, filters, snippets and goes on like an index built note by note', async () => {
    const notes = syntheticNotes(300);
    const { upserted, built } = await builtBoth(notes);
    const ranked = (index: VaultSearchIndex, words: string[], tagKeys?: string[]) =>
      index.match(words, { tagKeys }).map((s) => ({ note: index.note(s.doc).noteId, score: s.score, fields: s.fields, first: index.firstBodyOffset(s.doc, words) }));
    for (const words of [['quasarflux'], ['workflow'], ['amber', 'lighthouse', 'protocol'], ['notes']]) {
      expect(ranked(built, words)).toEqual(ranked(upserted, words));
      expect(ranked(built, words, ['project'])).toEqual(ranked(upserted, words, ['project']));
    }
    expect(ranked(built, ['workflow']).length).toBeGreaterThan(100);
    // Texts are kept for snippets, within the budget.
    expect(built.text(0)).toBe(notes[0]!.searchText);
    // New and replaced notes after the build.
    for (const index of [upserted, built]) {
      index.upsert({ noteId: 'n0', path: notes[0]!.path, title: 'Renamed', tagKeys: [], searchText: 'zebracorn' });
      index.upsert({ noteId: 'new', path: 'New.md', title: 'New', tagKeys: [], searchText: 'zebracorn workflow' });
    }
    expect(ranked(built, ['zebracorn']).map((r) => r.note).sort()).toEqual(['n0', 'new']);
    expect(ranked(built, ['workflow']).map((r) => r.note).sort()).toEqual(ranked(upserted, ['workflow']).map((r) => r.note).sort());
  });

  it('keeps no texts once they pass the budget, as an index built note by note drops them', async () => {
    const notes = syntheticNotes(50);
    const total = notes.reduce((sum, note) => sum + note.searchText.length, 0);
    const over = await builtBoth(notes, total - 1);
    expect(over.built.text(0)).toBeUndefined();
    expect(over.upserted.text(0)).toBeUndefined();
    const within = await builtBoth(notes, total);
    expect(within.built.text(49)).toBe(notes[49]!.searchText);
    expect(within.upserted.text(49)).toBe(notes[49]!.searchText);
  });

  it('builds an empty vault', async () => {
    const state = await new IndexBuilder(0).finish(1, slices());
    expect(state.words).toEqual([]);
    expect([...state.offsets]).toEqual([0]);
    const index = await VaultSearchIndex.fromState(state, slices(), undefined, []);
    expect(index.size).toBe(0);
    expect(index.match(['anything'])).toEqual([]);
  });
});
