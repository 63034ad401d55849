import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { Services } from '../../app/services.ts';
import { createFilesService } from '../files/index.ts';
import { createGraphService } from './service.ts';
import { createResolverCache } from './resolver-cache.ts';

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code?: string }) => error.code,
  );

/** The 1-based line of the first occurrence of `text` in `content`. */
const lineOf = (content: string, text: string) => {
  const at = content.indexOf(text);
  if (at < 0) throw new Error(`${text} is not in the content`);
  return content.slice(0, at).split('\n').length;
};

const NOTES_MD = [
  '# Notes',
  'Start with [[Plan]], then [[Plan#Goals|goals]] and [[Plan#^step-1]].',
  '![[Plan]]',
  '![[diagram.png]]',
  'Later: [[Missing Note]] and [the plan](Plan.md).',
  '```',
  '[[Plan]] and [[Ghost]] in code are text',
  '```',
  'Inline `[[Ghost]]` too.',
  '',
].join('\n');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const B_PLAN_MD = '# Plan B\nSee [[#Risks]], [[Plan#Risks|below]] and [[A/Plan|the other plan]].\n## Risks\n';

describe('the link graph of a hosted vault', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let operator: Actor;
  let mappingId: string;

  const write = (files: { path: string; content: string }[]) => services.notes.importNotes(operator, mappingId, files);
  const remove = async (path: string, content: string) => {
    const actions = [{ type: 'delete-note' as const, path, expectedHash: contentHash(content) }];
    const request = { accountId: owner.accountId, key: randomUUID(), operation: 'test', input: actions };
    await services.idempotency.run(request, (commit) =>
      services.notes.runTransaction({ actor: owner.actor, mappingId, dryRun: false, actions, capability: 'direct', commit }),
    );
  };
  const relations = (path: string, limit?: number) =>
    services.graph.relations(owner.actor, mappingId, { path, ...(limit !== undefined ? { limit } : {}) });

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('graph'));
    operator = { accountId: owner.accountId, credentialKind: 'operator', client: 'test' };
    mappingId = owner.mapping.id;
    await write([
      { path: 'A/Plan.md', content: '# Plan A\n## Goals\nStep one ^step-1\n' },
      { path: 'A/Notes.md', content: NOTES_MD },
      { path: 'B/Plan.md', content: B_PLAN_MD },
      { path: 'B/Other.md', content: 'Our [[Plan]].\n' },
      // Two notes named Plan at the same depth and length: the smaller path wins from the root.
      { path: 'Root.md', content: 'Top: [[Plan]]\n' },
    ]);
  });
  afterAll(() => db.close());

  it('lists outgoing links, embeds and unresolved links apart, with headings, block ids, aliases and lines', async () => {
    const graph = await relations('A/Notes.md');
    const line = (text: string) => lineOf(NOTES_MD, text);
    expect(graph.path).toBe('A/Notes.md');
    expect(graph.outgoing).toEqual([
      { path: 'A/Plan.md', target: 'Plan', kind: 'wikilink', heading: null, blockId: null, alias: null, line: 2 },
      { path: 'A/Plan.md', target: 'Plan', kind: 'wikilink', heading: 'Goals', blockId: null, alias: 'goals', line: 2 },
      { path: 'A/Plan.md', target: 'Plan', kind: 'wikilink', heading: null, blockId: 'step-1', alias: null, line: 2 },
      { path: 'A/Plan.md', target: 'Plan.md', kind: 'markdown', heading: null, blockId: null, alias: 'the plan', line: line('[the plan]') },
    ]);
    expect(graph.embeds).toEqual([
      { target: 'Plan', resolved: 'A/Plan.md', file: null, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 3 },
      // No file of that name is stored: the embed is listed, resolved to nothing.
      { target: 'diagram.png', resolved: null, file: null, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 4 },
    ]);
    // [[Ghost]] and the second [[Plan]] sit in code: they are text, not links.
    expect(graph.unresolved).toEqual([
      { target: 'Missing Note', kind: 'wikilink', heading: null, blockId: null, alias: null, line: line('[[Missing Note]]') },
    ]);
    expect(graph.truncated).toBe(false);
  });

  it('resolves embeds and links of stored canvases and attachments to the file, its kind and media type', async () => {
    const files = createFilesService(db, services.vaults, { idempotency: services.idempotency });
    const png = Buffer.concat([PNG_SIGNATURE, Buffer.from('pixels')]);
    const imported = await files.importFiles(owner.actor, mappingId, [
      { path: 'Media/diagram.png', content: png },
      { path: 'Media/a b.png', content: png },
      { path: 'Boards/Map.canvas', content: Buffer.from('{"nodes":[],"edges":[]}') },
      { path: 'Docs/spec.pdf', content: Buffer.from('%PDF-1.7\n') },
      { path: 'photo.png', content: png },
    ]);
    expect(imported.rejected).toEqual([]);
    const content = ['![[diagram.png]]', '![](../Media/a%20b.png)', '![[Map.canvas|the map]]', '![[Docs/spec.pdf#page=2]]', '![[photo.png]]', '![[gone.png]]', '[[photo.png]]', '[[spec.pdf|the spec]]', '[again](../Docs/spec.pdf)', '[[nothing.pdf]]', '[[photo.png.md]]', ''].join('\n');
    // A note named photo.png.md: an embed of photo.png still names the file, as in Obsidian.
    await write([{ path: 'C/Embeds.md', content }, { path: 'photo.png.md', content: '# not the picture\n' }]);
    const graph = await relations('C/Embeds.md');
    expect(graph.embeds.map((e) => [e.target, e.resolved, e.file, e.kind, e.alias, e.line])).toEqual([
      ['diagram.png', null, { path: 'Media/diagram.png', kind: 'attachment', mediaType: 'image/png', size: png.length }, 'wikilink', null, 1],
      ['../Media/a b.png', null, { path: 'Media/a b.png', kind: 'attachment', mediaType: 'image/png', size: png.length }, 'markdown', null, 2],
      ['Map.canvas', null, { path: 'Boards/Map.canvas', kind: 'canvas', mediaType: expect.stringContaining('json'), size: 23 }, 'wikilink', 'the map', 3],
      ['Docs/spec.pdf', null, { path: 'Docs/spec.pdf', kind: 'attachment', mediaType: 'application/pdf', size: 9 }, 'wikilink', null, 4],
      ['photo.png', null, { path: 'photo.png', kind: 'attachment', mediaType: 'image/png', size: png.length }, 'wikilink', null, 5],
      ['gone.png', null, null, 'wikilink', null, 6],
    ]);
    // Plain links name files by the same rules and list them apart: [[photo.png]] is the file, not photo.png.md.
    const spec = { path: 'Docs/spec.pdf', kind: 'attachment', mediaType: 'application/pdf', size: 9 };
    expect(graph.fileLinks).toEqual([
      { target: 'photo.png', file: { path: 'photo.png', kind: 'attachment', mediaType: 'image/png', size: png.length }, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 7 },
      { target: 'spec.pdf', file: spec, kind: 'wikilink', heading: null, blockId: null, alias: 'the spec', line: 8 },
      { target: '../Docs/spec.pdf', file: spec, kind: 'markdown', heading: null, blockId: null, alias: 'again', line: 9 },
    ]);
    // What names no file is a note link as before: resolved, or unresolved.
    expect(graph.outgoing.map((l) => l.path)).toEqual(['photo.png.md']);
    expect(graph.unresolved.map((l) => l.target)).toEqual(['nothing.pdf']);
    // The note photo.png.md is linked to only by the link that names it: [[photo.png]] is the image's.
    expect((await relations('photo.png.md')).incoming.map((l) => [l.sourcePath, l.line, l.embed])).toEqual([['C/Embeds.md', 11, false]]);
    // A file's backlinks: every link and embed of it, by name, by path and relative, from its own note.
    const specLinks = await services.graph.fileIncoming(owner.actor, mappingId, { path: 'Docs/spec.pdf' });
    expect(specLinks.incoming.map((l) => [l.sourcePath, l.line, l.embed, l.kind])).toEqual([
      ['C/Embeds.md', 4, true, 'wikilink'],
      ['C/Embeds.md', 8, false, 'wikilink'],
      ['C/Embeds.md', 9, false, 'markdown'],
    ]);
    expect(specLinks.truncated).toBe(false);
    // A note beside another spec.pdf links to that one, not to Docs/spec.pdf; a bound cuts the list and says so.
    await files.importFiles(owner.actor, mappingId, [{ path: 'D/E/spec.pdf', content: Buffer.from('%PDF-1.7\nD\n') }]);
    await write([{ path: 'D/E/Near.md', content: '[[spec.pdf]]\n' }]);
    const near = await services.graph.fileIncoming(owner.actor, mappingId, { path: 'D/E/spec.pdf' });
    expect(near.incoming.map((l) => l.sourcePath)).toEqual(['D/E/Near.md']);
    expect((await services.graph.fileIncoming(owner.actor, mappingId, { path: 'Docs/spec.pdf' })).incoming.map((l) => l.sourcePath)).not.toContain('D/E/Near.md');
    expect(await services.graph.fileIncoming(owner.actor, mappingId, { path: 'Docs/spec.pdf', limit: 2 })).toMatchObject({ incoming: [{ line: 4 }, { line: 8 }], truncated: true });
    expect((await services.graph.fileIncoming(owner.actor, mappingId, { path: 'Docs/none.pdf' })).incoming).toEqual([]);
    // Another account's vault with the same files resolves nothing of ours.
    const other = await createOwner(services, 'graph-files-other');
    await services.notes.importNotes(other.actor, other.mapping.id, [{ path: 'C/Embeds.md', content }]);
    const theirs = await services.graph.relations(other.actor, other.mapping.id, { path: 'C/Embeds.md' });
    expect(theirs.embeds.every((e) => e.file === null)).toBe(true);
    expect(theirs.fileLinks).toEqual([]);
    // Nor does anyone see our file's backlinks: their vault has no such file, and ours is not theirs to read.
    expect((await services.graph.fileIncoming(other.actor, other.mapping.id, { path: 'Docs/spec.pdf' })).incoming).toEqual([]);
    await expect(services.graph.fileIncoming(other.actor, mappingId, { path: 'Docs/spec.pdf' })).rejects.toMatchObject({ code: 'not_found' });
    expect(theirs.unresolved.map((l) => l.target)).toEqual(['photo.png', 'spec.pdf', '../Docs/spec.pdf', 'nothing.pdf', 'photo.png.md']);
  });

  it('counts as incoming only the links that resolve to this note, not to another note of the same name', async () => {
    const a = await relations('A/Plan.md');
    expect(a.incoming.map((l) => [l.sourcePath, l.line, l.kind, l.embed, l.heading, l.blockId, l.alias])).toEqual([
      ['A/Notes.md', 2, 'wikilink', false, null, null, null],
      ['A/Notes.md', 2, 'wikilink', false, 'Goals', null, 'goals'],
      ['A/Notes.md', 2, 'wikilink', false, null, 'step-1', null],
      ['A/Notes.md', 3, 'wikilink', true, null, null, null],
      ['A/Notes.md', 5, 'markdown', false, null, null, 'the plan'],
      ['B/Plan.md', 2, 'wikilink', false, null, null, 'the other plan'],
      ['Root.md', 1, 'wikilink', false, null, null, null],
    ]);
    // B/Other.md's [[Plan]] prefers its own folder. B/Plan.md's [[#Risks]] and [[Plan#Risks]] point at itself: they
    // are outgoing links, never incoming ones.
    const b = await relations('B/Plan.md');
    expect(b.incoming).toEqual([{ sourcePath: 'B/Other.md', embed: false, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 1 }]);
    expect(b.outgoing.map((l) => [l.path, l.heading, l.alias])).toEqual([
      ['B/Plan.md', 'Risks', null],
      ['B/Plan.md', 'Risks', 'below'],
      ['A/Plan.md', null, 'the other plan'],
    ]);
  });

  it('finds the note whatever the case of the path, and refuses missing notes and invalid paths', async () => {
    expect((await relations('b/plan.md')).path).toBe('B/Plan.md');
    expect(await codeOf(relations('A/Nope.md'))).toBe('not_found');
    expect(await codeOf(relations('A/Plan'))).toBe('invalid_path');
    expect(await codeOf(relations('../A/Plan.md'))).toBe('invalid_path');
  });

  it('resolves earlier links to a note created later, and leaves them unresolved again once it is deleted', async () => {
    const content = '# Missing no more\n';
    await write([{ path: 'C/Missing Note.md', content }]);
    const notes = await relations('A/Notes.md');
    expect(notes.unresolved).toEqual([]);
    expect(notes.outgoing.at(-2)).toMatchObject({ path: 'C/Missing Note.md', line: 5 });
    expect((await relations('C/Missing Note.md')).incoming).toEqual([
      { sourcePath: 'A/Notes.md', embed: false, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 5 },
    ]);

    await remove('C/Missing Note.md', content);
    expect(await codeOf(relations('C/Missing Note.md'))).toBe('not_found');
    const after = await relations('A/Notes.md');
    expect(after.unresolved.map((l) => l.target)).toEqual(['Missing Note']);
    expect(after.outgoing.map((l) => l.path)).not.toContain('C/Missing Note.md');
  });

  it('moves links to the other note of a shared name when one is deleted', async () => {
    const content = '# Plan A\n## Goals\nStep one ^step-1\n';
    await remove('A/Plan.md', content);
    // Root.md's [[Plan]] and A/Notes.md's links now find the only Plan left.
    const b = await relations('B/Plan.md');
    expect(b.incoming.map((l) => [l.sourcePath, l.line, l.kind, l.embed])).toEqual([
      ['A/Notes.md', 2, 'wikilink', false],
      ['A/Notes.md', 2, 'wikilink', false],
      ['A/Notes.md', 2, 'wikilink', false],
      ['A/Notes.md', 3, 'wikilink', true],
      ['A/Notes.md', 5, 'markdown', false],
      ['B/Other.md', 1, 'wikilink', false],
      ['Root.md', 1, 'wikilink', false],
    ]);
    expect((await relations('Root.md')).outgoing.map((l) => l.path)).toEqual(['B/Plan.md']);
    await write([{ path: 'A/Plan.md', content }]);
    expect((await relations('Root.md')).outgoing.map((l) => l.path)).toEqual(['A/Plan.md']);
  });

  it('bounds every list by limit and says truncated, and validates limit', async () => {
    const hub = 'Hub.md';
    await write([
      { path: hub, content: ['[[Target 1]] [[Target 2]] [[Target 3]]', '[[Gone 1]] [[Gone 2]] [[Gone 3]]', '![[x.png]] ![[y.png]] ![[z.png]]'].join('\n') },
      ...[1, 2, 3].map((k) => ({ path: `T/Target ${k}.md`, content: `[[Hub]] back from ${k}\n` })),
    ]);
    const full = await relations(hub, 3);
    expect([full.outgoing.length, full.unresolved.length, full.embeds.length, full.incoming.length, full.truncated]).toEqual([3, 3, 3, 3, false]);
    const cut = await relations(hub, 2);
    expect([cut.outgoing.length, cut.unresolved.length, cut.embeds.length, cut.incoming.length, cut.truncated]).toEqual([2, 2, 2, 2, true]);
    expect(cut.outgoing.map((l) => l.path)).toEqual(['T/Target 1.md', 'T/Target 2.md']);
    // One list over the limit is enough.
    await write([{ path: 'T/Target 4.md', content: '[[Hub]]\n' }]);
    const incomingOnly = await relations(hub, 3);
    expect([incomingOnly.incoming.length, incomingOnly.outgoing.length, incomingOnly.truncated]).toEqual([3, 3, true]);
    for (const limit of [0, 1001, 1.5, -1]) expect(await codeOf(relations(hub, limit))).toBe('invalid_request');
    expect((await relations(hub, 1000)).truncated).toBe(false);
  });

  it('stops looking for incoming links after a bounded number of candidates, and says so', async () => {
    const bounded = createGraphService(db, services.vaults, { incomingCandidates: 3 });
    // Four notes link to [[Plan]] from folders of their own: the candidates all resolve to A/Plan.md (root tie-break).
    await write([1, 2, 3, 4].map((k) => ({ path: `Far${k}/Note.md`, content: '[[Plan]]\n' })));
    const b = await bounded.relations(owner.actor, mappingId, { path: 'B/Plan.md' });
    expect(b.truncated).toBe(true);
    const wide = await relations('B/Plan.md');
    expect(wide.truncated).toBe(false);
  });

  it('reads incoming candidates page by page when most of them resolve to another note of the same name', async () => {
    // 150 links to [[Plan]] from folders without a Plan resolve to A/Plan.md; the last note written links to its
    // neighbour B/Plan.md. Candidates come in the order notes were written, so finding it takes several pages.
    await write(Array.from({ length: 150 }, (_, k) => ({ path: `Many${k}/Note.md`, content: '[[Plan]]\n' })));
    await write([{ path: 'B/Last.md', content: 'Last: [[Plan]]\n' }]);
    // B/Plan.md has 3 outgoing links: a limit of 3 cuts nothing.
    const all = await relations('B/Plan.md', 3);
    expect(all.incoming.map((l) => l.sourcePath)).toEqual(['B/Last.md', 'B/Other.md']);
    expect(all.truncated).toBe(false);
    const one = await relations('B/Plan.md', 1);
    expect(one.incoming.map((l) => l.sourcePath)).toEqual(['B/Other.md']);
    expect(one.truncated).toBe(true);
    expect((await relations('A/Plan.md', 1000)).incoming.filter((l) => l.sourcePath.startsWith('Many'))).toHaveLength(150);
  });

  it('refuses device-encrypted mappings and mappings of other accounts', async () => {
    const other = await createOwner(services, 'graph-other');
    expect(await codeOf(services.graph.relations(other.actor, mappingId, { path: 'A/Plan.md' }))).toBe('not_found');
    expect(await codeOf(services.graph.relations(owner.actor, randomUUID(), { path: 'A/Plan.md' }))).toBe('not_found');
    expect(await codeOf(services.graph.relations(owner.actor, 'not-a-uuid', { path: 'A/Plan.md' }))).toBe('not_found');
    await services.notes.importNotes({ ...operator, accountId: other.accountId }, other.mapping.id, [{ path: 'Secret.md', content: '[[Plan]]' }]);
    await services.vaults.updateMappingFlags(other.mapping.id, { deviceEncrypted: true });
    expect(await codeOf(services.graph.relations(other.actor, other.mapping.id, { path: 'Secret.md' }))).toBe('device_encrypted');
    // The other vault's [[Plan]] is not an incoming link of this vault's notes.
    expect((await relations('A/Plan.md')).incoming.map((l) => l.sourcePath)).not.toContain('Secret.md');
  });

  it('finds incoming links typed in another Unicode normalization or case', async () => {
    await write([
      { path: 'Café.md', content: '# Café\n' },
      { path: 'Typed.md', content: 'Decomposed [[Cafe\u0301]] and upper [[CAFÉ]].\n' },
    ]);
    const cafe = await relations('Cafe\u0301.md');
    expect(cafe.path).toBe('Café.md');
    expect(cafe.incoming.map((l) => l.sourcePath)).toEqual(['Typed.md', 'Typed.md']);
  });
});

describe('the per-vault resolver cache', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let operator: Actor;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('graph-cache'));
    operator = { accountId: owner.accountId, credentialKind: 'operator', client: 'test' };
  });
  afterAll(() => db.close());

  const version = async (vaultId: string) =>
    (await db.query<{ v: number }>('SELECT content_version AS v FROM vaults WHERE id = $1', [vaultId]))[0]!.v;

  it('keeps the resolver across edits that move no path, adds new paths, and rebuilds after a deletion', async () => {
    const vaultId = owner.mapping.vaultId;
    const write = (path: string, content: string) => services.notes.importNotes(operator, owner.mapping.id, [{ path, content }]);
    await write('One.md', 'one');
    const cache = createResolverCache(db, 1);
    const first = await cache.resolverFor(vaultId, await version(vaultId));
    expect(first.resolve('One', 'x.md')).toBe('One.md');
    expect(await cache.resolverFor(vaultId, await version(vaultId))).toBe(first);

    await write('One.md', 'edited');
    expect(await cache.resolverFor(vaultId, await version(vaultId))).toBe(first);

    await write('Two.md', 'two');
    const second = await cache.resolverFor(vaultId, await version(vaultId));
    expect(second).not.toBe(first);
    expect(second.resolve('Two', 'x.md')).toBe('Two.md');

    await db.query("DELETE FROM notes WHERE vault_id = $1 AND path = 'One.md'", [vaultId]);
    await db.query('UPDATE vaults SET content_version = content_version + 1 WHERE id = $1', [vaultId]);
    const third = await cache.resolverFor(vaultId, await version(vaultId));
    expect(third.resolve('One', 'x.md')).toBeUndefined();
    expect(third.resolve('Two', 'x.md')).toBe('Two.md');

    // A case-only rename keeps the count: the old spelling must still go.
    await write('two.md', 'renamed');
    expect((await cache.resolverFor(vaultId, await version(vaultId))).resolve('Two', 'x.md')).toBe('two.md');
  });

  it('holds at most the configured number of vaults and stays correct for each', async () => {
    const other = await createOwner(services, 'graph-cache-2');
    await services.notes.importNotes({ ...operator, accountId: other.accountId }, other.mapping.id, [{ path: 'Other.md', content: 'x' }]);
    const cache = createResolverCache(db, 1);
    const a = owner.mapping.vaultId;
    const b = other.mapping.vaultId;
    const ra = await cache.resolverFor(a, await version(a));
    const rb = await cache.resolverFor(b, await version(b));
    expect(rb.resolve('Other', 'x.md')).toBe('Other.md');
    expect(ra.resolve('Other', 'x.md')).toBeUndefined();
    // `a` was evicted: asked again, it is rebuilt (a new object) with the same answers.
    const again = await cache.resolverFor(a, await version(a));
    expect(again).not.toBe(ra);
    expect(again.resolve('Two', 'x.md')).toBe('two.md');
  });
});
