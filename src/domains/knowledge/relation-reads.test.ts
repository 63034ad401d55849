import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { KgateError } from '../../kernel/errors.ts';
import type { NoteAction } from '../notes/index.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import { compareTitles, titleTerms, trigramSimilarity } from './lexical.ts';
import type { RelatedNote } from './relation-contract.ts';

// find_related and get_relationship_explanation over notes written through the governed write path, in a slice of
// the vault (Projects/); Hidden/ is outside it.
const NOTES: Record<string, string> = {
  'Projects/Alpha.md': [
    '---',
    'type: project',
    'id: alpha',
    'owner: Ana',
    'depends_on: "[[Delta]]"',
    '---',
    '# Alpha rollout plan',
    '',
    'Links to [[Beta]] and embeds ![[Gamma]].',
    'Cites [[Beta#^claim|the claim]].',
    'Uses [[Secret]], [[Nowhere]] and ![[diagram.png]].',
    '',
    'Our goal. ^goal',
    '',
  ].join('\n'),
  'Projects/Beta.md': '# Beta\n\nA claim. ^claim\n\nNext: [[Epsilon]] and [[Alpha]].\n',
  'Projects/Gamma.md': '# Gamma\n\nBack to [[Alpha]].\n',
  'Projects/Delta.md': '# Delta\n\nSee [[Alpha#^goal]].\n',
  'Projects/Epsilon.md': '# Epsilon\n\nThen [[Hidden/Secret]].\n',
  'Projects/Alpha status.md': '---\ntype: project\nid: alpha\nstatus: active\n---\n# Alpha status\n',
  'Projects/Alpha rollout checklist.md': '# Alpha rollout checklist\n',
  'Projects/D0.md': '---\ntype: decision\nstatus: superseded\n---\n# Old way\n',
  'Projects/D1.md': '---\ntype: decision\nstatus: accepted\nsubject: "[[Alpha]]"\nsupersedes: "[[D0]]"\n---\n# Use Alpha\n',
  'Tagged/T1.md': '# Team one\n\n#team [[T2]] and [[T3]].\n',
  'Tagged/T2.md': '# Team two\n\n#team/core\n',
  'Tagged/T3.md': '# Team three\n',
  'Hidden/Secret.md': '---\ntype: project\nid: alpha\nbudget: 10\n---\n# Secret\n\n[[Alpha]] and [[Epsilon]].\n',
};

describe('relation reads', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let slice: ScopeSlice;
  const clock: Clock = { now: () => new Date('2026-11-25T09:00:00Z') };

  const apply = (actions: NoteAction[]) =>
    services.idempotency.run({ accountId: owner.accountId, key: randomUUID(), operation: 'test', input: actions }, (commit) =>
      services.notes.runTransaction({ actor: owner.actor, mappingId: owner.mapping.id, dryRun: false, actions, capability: 'direct', commit }),
    );

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('relations', clock));
    slice = { vaultId: owner.mapping.vaultId, pathPrefixes: ['Projects/'], tags: [] };
    await apply(Object.entries(NOTES).map(([path, content]) => ({ type: 'write-note' as const, path, content })));
  });
  afterAll(() => db.close());

  const related = (path: string, extra: { types?: RelatedNote['type'][]; limit?: number; cursor?: string } = {}) => services.knowledge.related(slice, { path, ...extra });
  const find = (items: RelatedNote[], type: string, path: string, direction?: string) =>
    items.filter((i) => i.type === type && i.path === path && (direction === undefined || i.direction === direction));

  it('answers every type for a note, each labelled, with evidence, and counts what is outside the slice as withheld', async () => {
    const page = await related('Projects/Alpha.md', { limit: 200 });
    const items = page.related;
    expect(find(items, 'explicit', 'Projects/Beta.md', 'outgoing')).toEqual([
      expect.objectContaining({
        relation: 'link',
        title: 'Beta',
        evidenceCount: 2,
        evidence: [
          { path: 'Projects/Alpha.md', lines: [9, 9], text: '[[Beta]]', recordId: null, blockId: null },
          { path: 'Projects/Alpha.md', lines: [10, 10], text: '[[Beta#^claim|the claim]]', recordId: null, blockId: 'claim' },
        ],
      }),
    ]);
    expect(find(items, 'explicit', 'Projects/Gamma.md').map((i) => [i.direction, i.relation])).toEqual([
      ['incoming', 'link'],
      ['outgoing', 'embed'],
    ]);
    const dependsOn = find(items, 'explicit', 'Projects/Delta.md', 'outgoing')[0]!;
    expect(dependsOn).toMatchObject({ relation: 'depends_on', evidence: [{ text: 'depends_on: [[Delta]]', lines: [1, 6] }] });
    expect(dependsOn.evidence[0]!.recordId).toMatch(/^[0-9a-f]{32}$/);
    // Evidence: Alpha cites Beta's block; Delta cites Alpha's.
    expect(find(items, 'evidence', 'Projects/Beta.md')).toEqual([expect.objectContaining({ direction: 'outgoing', relation: 'cites_block' })]);
    expect(find(items, 'evidence', 'Projects/Delta.md')).toEqual([
      expect.objectContaining({ direction: 'incoming', relation: 'cites_block', evidence: [expect.objectContaining({ text: '[[Alpha#^goal]]', blockId: 'goal' })] }),
    ]);
    // Decision: D1's subject names Alpha.
    expect(find(items, 'decision', 'Projects/D1.md')).toEqual([
      expect.objectContaining({ direction: 'incoming', relation: 'subject', evidence: [expect.objectContaining({ text: 'subject: [[Alpha]]' })] }),
    ]);
    // Temporal: the same entity (project alpha) in another note of the slice; the hidden note is withheld.
    expect(find(items, 'temporal', 'Projects/Alpha status.md')).toEqual([
      expect.objectContaining({ direction: 'mutual', entities: [{ entityType: 'project', entityId: 'alpha' }], evidence: [expect.objectContaining({ text: 'project alpha: status' })] }),
    ]);
    // Semantic: lexical similarity, labelled as such.
    const semantic = items.filter((i) => i.type === 'semantic');
    expect(semantic.map((i) => i.path)).toEqual(['Projects/Alpha rollout checklist.md']);
    expect(semantic[0]).toMatchObject({ method: 'lexical', sharedTerms: ['alpha', 'rollout'], direction: 'mutual' });
    expect(semantic[0]!.score).toBeGreaterThanOrEqual(0.3);
    // Derived: Alpha -> Beta -> Epsilon (not directly linked); Beta -> Alpha is Alpha itself, not derived.
    expect(items.filter((i) => i.type === 'derived').map((i) => [i.path, i.via?.path])).toEqual([['Projects/Epsilon.md', 'Projects/Beta.md']]);
    // Nothing outside the slice is named anywhere.
    expect(JSON.stringify(page)).not.toContain('Hidden/');
    // Withheld: explicit out to [[Secret]] (it resolves to Hidden/Secret.md, outside), to [[Nowhere]] (missing), and
    // in from Hidden/Secret.md; temporal: Hidden/Secret.md. The attachment embed is no note.
    // Derived: Alpha -> Hidden/Secret.md -> Epsilon.
    expect(page.withheldByType).toEqual({ explicit: 3, decision: 0, evidence: 0, temporal: 1, semantic: 0, derived: 1 });
    expect(page.withheld).toBe(5);
    expect(page).toMatchObject({ truncated: false, nextCursor: null, limitsReached: [] });
    // Types come in order.
    const order = ['explicit', 'decision', 'evidence', 'temporal', 'semantic', 'derived'];
    expect(items.map((i) => order.indexOf(i.type))).toEqual(items.map((i) => order.indexOf(i.type)).sort());
  });

  it('answers decision relations between decision notes, and filters by type', async () => {
    const d1 = await related('Projects/D1.md', { types: ['decision'] });
    expect(d1.related.map((i) => [i.path, i.direction, i.relation])).toEqual([
      ['Projects/Alpha.md', 'outgoing', 'subject'],
      ['Projects/D0.md', 'outgoing', 'supersedes'],
    ]);
    const d0 = await related('Projects/D0.md', { types: ['decision'] });
    expect(d0.related).toEqual([expect.objectContaining({ path: 'Projects/D1.md', direction: 'incoming', relation: 'supersedes' })]);
  });

  it('pages with a cursor in a fixed order, and refuses a cursor it did not make', async () => {
    const all = (await related('Projects/Alpha.md', { limit: 200 })).related;
    const seen: RelatedNote[] = [];
    let cursor: string | undefined;
    for (let k = 0; k < 20; k += 1) {
      const page = await related('Projects/Alpha.md', { limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.related);
      if (!page.nextCursor) {
        expect(page.truncated).toBe(false);
        break;
      }
      expect(page.truncated).toBe(true);
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(all);
    await expect(related('Projects/Alpha.md', { cursor: 'bm9wZQ' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(related('Projects/Alpha.md', { limit: 201 })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('answers not_found for a note outside the slice or missing, the same way', async () => {
    const failure = (path: string) => related(path).then(() => undefined, (e: KgateError) => ({ code: e.code, message: e.message }));
    const outside = await failure('Hidden/Secret.md');
    expect(outside).toMatchObject({ code: 'not_found' });
    expect(await failure('Projects/Nope.md')).toEqual(outside);
  });

  it('explains a relation with quoted evidence and the freshness of both notes', async () => {
    const explicit = await services.knowledge.explainRelationship(slice, { from: 'Projects/Alpha.md', to: 'Projects/Beta.md', type: 'explicit' });
    expect(explicit.holds).toBe(true);
    expect(explicit.relations.map((r) => [r.direction, r.relation])).toEqual([
      ['incoming', 'link'],
      ['outgoing', 'link'],
    ]);
    expect(explicit.relations[1]!.evidence[0]).toMatchObject({ lines: [9, 9], quote: 'Links to [[Beta]] and embeds ![[Gamma]].' });
    expect(explicit.from).toMatchObject({ path: 'Projects/Alpha.md', storedAt: '2026-11-25T09:00:00.000Z', storedAtSource: 'observation_receipt', knowledgeCurrent: true });
    expect(explicit.from.compiledRevision).toBe(explicit.from.revision);

    const semantic = await services.knowledge.explainRelationship(slice, { from: 'Projects/Alpha.md', to: 'Projects/Alpha status.md', type: 'semantic' });
    expect(semantic).toMatchObject({ holds: false, relations: [], lexical: { method: 'lexical', threshold: 0.3, sharedTerms: ['alpha'] } });
    const temporal = await services.knowledge.explainRelationship(slice, { from: 'Projects/Alpha.md', to: 'Projects/Alpha status.md', type: 'temporal' });
    expect(temporal.holds).toBe(true);
    expect(temporal.relations[0]!.evidence[0]).toMatchObject({ text: 'project alpha: status', quote: expect.stringContaining('type: project') });

    const derived = await services.knowledge.explainRelationship(slice, { from: 'Projects/Alpha.md', to: 'Projects/Epsilon.md', type: 'derived' });
    // Alpha -> [[Secret]] -> Epsilon goes through a note outside the slice: counted, not shown.
    expect(derived).toMatchObject({ holds: true, directlyLinked: false, withheld: 1 });
    expect(derived.relations[0]).toMatchObject({ via: { path: 'Projects/Beta.md' }, evidence: [{ text: '[[Beta]]' }, { text: '[[Epsilon]]', quote: 'Next: [[Epsilon]] and [[Alpha]].' }] });
    const notDerived = await services.knowledge.explainRelationship(slice, { from: 'Projects/Alpha.md', to: 'Projects/Beta.md', type: 'derived' });
    expect(notDerived).toMatchObject({ holds: false, directlyLinked: true });

    const decision = await services.knowledge.explainRelationship(slice, { from: 'Projects/D1.md', to: 'Projects/D0.md', type: 'decision' });
    expect(decision.relations).toEqual([expect.objectContaining({ relation: 'supersedes', direction: 'outgoing' })]);

    await expect(services.knowledge.explainRelationship(slice, { from: 'Projects/Alpha.md', to: 'Hidden/Secret.md', type: 'explicit' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(services.knowledge.explainRelationship(slice, { from: 'Projects/Alpha.md', to: 'Projects/Alpha.md', type: 'explicit' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('reads a tag slice: a note carrying the tag (or one nested under it) is in it, one without is withheld', async () => {
    const tagged: ScopeSlice = { vaultId: slice.vaultId, pathPrefixes: [], tags: ['team'] };
    const page = await services.knowledge.related(tagged, { path: 'Tagged/T1.md', types: ['explicit'] });
    expect(page.related.map((i) => i.path)).toEqual(['Tagged/T2.md']);
    expect(page.withheld).toBe(1);
    await expect(services.knowledge.related(tagged, { path: 'Tagged/T3.md' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('computes lexical similarity as pg_trgm does', () => {
    expect(trigramSimilarity('word', 'word')).toBe(1);
    expect(trigramSimilarity('', 'word')).toBe(0);
    // pg_trgm: similarity('word', 'two words') = 0.363636
    expect(trigramSimilarity('word', 'two words')).toBeCloseTo(0.363636, 5);
    expect(titleTerms('The 2026 plan for Alpha, and ALPHA again')).toEqual(['plan', 'alpha', 'again']);
    expect(compareTitles('Alpha rollout plan', 'Beta')).toEqual({ sharedTerms: [], score: 0, holds: false });
  });
});
