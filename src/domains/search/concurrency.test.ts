import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import type { Database, Row } from '../../db/port.ts';
import type { Services } from '../../app/services.ts';
import { createSearchService } from './service.ts';
import { VaultSearchIndex } from './vault-index.ts';

describe('search under concurrent change', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('concurrent'));
  });
  afterAll(() => db.close());

  it('a search that waits for a refresh begun for an older version still sees every write it follows', async () => {
    // The real database, with the answer of the index's catch-up read held at a gate (the rows are read first), to
    // order events deterministically.
    let gate: Promise<void> = Promise.resolve();
    let open: () => void = () => undefined;
    const gated: Database = {
      ...db,
      async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<R[]> {
        const rows = await db.query<R>(text, params);
        if (text.includes('content_version >')) await gate;
        return rows;
      },
    };
    const search = createSearchService(gated, services.vaults);
    const find = async (query: string) => (await search.searchNotes(owner.actor, owner.mapping.id, { query })).results.map((hit) => hit.path);
    const write = (path: string, content: string) => services.notes.importNotes(owner.actor, owner.mapping.id, [{ path, content }]);

    expect(await find('ocelot')).toEqual([]);
    await write('A.md', 'ocelot one');
    gate = new Promise((resolve) => (open = resolve));
    const first = find('ocelot'); // begins a refresh to the version with A.md; it reads its rows, then waits
    await new Promise((resolve) => setTimeout(resolve, 20));
    await write('B.md', 'ocelot two');
    const second = find('ocelot'); // its caller has seen B.md committed
    await new Promise((resolve) => setTimeout(resolve, 20));
    open();
    expect(await first).toEqual(['A.md']);
    expect((await second).sort()).toEqual(['A.md', 'B.md']);
  });

  it('does not renumber documents while a search holds them; compacts once it is done', async () => {
    const index = new VaultSearchIndex(0);
    for (let k = 0; k < 1500; k++) index.upsert({ noteId: `n${k}`, path: `N ${k}.md`, title: `N ${k}`, tagKeys: [], searchText: 'lynx' });
    const weightBefore = index.weight;
    await index.reading(async () => {
      const held = index.match(['lynx']).find((c) => index.note(c.doc).noteId === 'n1499')!;
      for (let k = 0; k < 1300; k++) index.remove(`n${k}`);
      index.compactIfIdle(); // a refresh finishing meanwhile must not compact
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(index.note(held.doc).noteId).toBe('n1499');
      expect(index.weight).toBe(weightBefore);
    });
    expect(index.weight).toBe(200);
    expect(index.match(['lynx']).map((c) => index.note(c.doc).noteId).sort()).toEqual(Array.from({ length: 200 }, (_, k) => `n${1300 + k}`).sort());
  });
});
