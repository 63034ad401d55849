import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../test/support/domain-database.ts';
import type { Owner } from '../../test/support/fixtures.ts';
import type { Services } from '../app/services.ts';
import type { Database } from '../db/port.ts';
import type { Actor } from '../kernel/principal.ts';
import { importFolder } from './import-folder.ts';

describe('importing a folder larger than a batch (the next batch is parsed while the current one is written)', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let actor: Actor;
  let dir: string;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase());
    actor = { accountId: owner.accountId, credentialKind: 'operator', client: 'test' };
    dir = await mkdtemp(join(tmpdir(), 'kgate-import-folder-'));
    // 600 notes, three batches. "Zeta.md" sorts before the lower-case names and "zeta.md" after them, so the two
    // spellings of one path fall in different batches: the later one must win, exactly as with one batch at a time.
    for (let i = 0; i < 598; i++) await writeFile(join(dir, `n-${String(i).padStart(3, '0')}.md`), `# ${i}\nLinks to [[n-${String((i + 1) % 598).padStart(3, '0')}]].\n`);
    await writeFile(join(dir, 'Zeta.md'), 'first spelling\n');
    await writeFile(join(dir, 'zeta.md'), 'second spelling\n');
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('imports every note once, in folder order, with its links and one event each', async () => {
    const report = await importFolder(services.notes, actor, owner.mapping.id, dir);
    expect(report).toMatchObject({ notes: 600, created: 599, updated: 1, unchanged: 0, rejected: [] });
    const [stored] = await db.query<{ notes: number; links: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM notes WHERE vault_id = $1) AS notes,
              (SELECT count(*)::int FROM note_links WHERE vault_id = $1) AS links,
              (SELECT count(*)::int FROM provenance_events WHERE mapping_id = $2) AS events`,
      [owner.mapping.vaultId, owner.mapping.id],
    );
    expect(stored).toEqual({ notes: 599, links: 598, events: 600 });
    const [zeta] = await db.query<{ path: string; content: string }>(`SELECT path, content FROM notes WHERE path_key = 'zeta.md'`);
    expect(zeta).toEqual({ path: 'zeta.md', content: 'second spelling\n' });
  });

  it('the second time, writes only the two spellings again (each replaces the other), and leaves the rest alone', async () => {
    const before = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM provenance_events');
    const report = await importFolder(services.notes, actor, owner.mapping.id, dir);
    expect(report).toMatchObject({ created: 0, updated: 2, unchanged: 598, rejected: [] });
    expect(await db.query('SELECT count(*)::int AS n FROM provenance_events')).toEqual([{ n: before[0]!.n + 2 }]);
    const [zeta] = await db.query<{ path: string; content: string }>(`SELECT path, content FROM notes WHERE path_key = 'zeta.md'`);
    expect(zeta).toEqual({ path: 'zeta.md', content: 'second spelling\n' });
  });
});
