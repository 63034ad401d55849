import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../../test/support/database.ts';
import { loadMigrations, migrationStatus } from './migrate.ts';
import { openPglite } from './pglite.ts';
import { ensurePgliteTemplate, seedFromTemplate, templateKey } from './pglite-template.ts';

// The migrated template that new embedded data directories are copied from. Embedded only: once.
describe.runIf(TEST_ENGINE === 'pglite')('the embedded database template', () => {
  let work: string;
  let root: string;
  let template: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'kgate-template-'));
    root = join(work, 'templates');
    // What an older version left (removed once the new template is made) and another process's unfinished one
    // (kept: that process may still be writing it).
    mkdirSync(join(root, '0123456789abcdef'), { recursive: true });
    writeFileSync(join(root, '0123456789abcdef', 'PG_VERSION'), '17\n');
    mkdirSync(join(root, `${templateKey()}.tmp-1-deadbeef`));
    // Two processes starting at once on a machine without a template both make one; exactly one is kept.
    const [first, second] = await Promise.all([ensurePgliteTemplate(root), ensurePgliteTemplate(root)]);
    expect(second).toBe(first);
    template = first;
  });
  afterAll(() => rm(work, { recursive: true, force: true }));

  it('is named by its key, and leaves one template, no scratch folder of its own, and no other version', () => {
    expect(template).toBe(join(root, templateKey()));
    expect(readdirSync(root).sort()).toEqual([templateKey(), `${templateKey()}.tmp-1-deadbeef`]);
  });

  it('is made once: a later call returns the same folder untouched', async () => {
    const before = statSync(join(template, 'PG_VERSION')).mtimeMs;
    expect(await ensurePgliteTemplate(root)).toBe(template);
    expect(statSync(join(template, 'PG_VERSION')).mtimeMs).toBe(before);
  });

  it('has another key when a migration changes, so that no template of older migrations is copied', () => {
    const migrations = loadMigrations();
    const edited = migrations.map((m, i) => (i === migrations.length - 1 ? { ...m, checksum: `${m.checksum}x` } : m));
    expect(templateKey(edited)).not.toBe(templateKey(migrations));
    expect(templateKey(migrations)).toBe(templateKey());
  });

  it('seeds a new data directory that opens at migration head, empty, and separate from the template', async () => {
    const dir = join(work, 'data', 'pglite');
    expect(await seedFromTemplate(dir, root)).toBe(true);
    const db = await openPglite({ dataDir: dir });
    try {
      expect((await migrationStatus(db)).atHead).toBe(true);
      expect(await db.query('SELECT count(*)::int AS n FROM accounts')).toEqual([{ n: 0 }]);
      await db.exec('CREATE TABLE only_here (id int)');
    } finally {
      await db.close();
    }
    const copy = await openPglite({ dataDir: await ensurePgliteTemplate(root) });
    try {
      expect(await copy.query("SELECT to_regclass('only_here')::text AS t")).toEqual([{ t: null }]);
    } finally {
      await copy.close();
    }
    expect(readdirSync(join(work, 'data'))).toEqual(['pglite']);
  });

  it('changes nothing where the directory exists already', async () => {
    const dir = join(work, 'existing');
    mkdirSync(dir);
    writeFileSync(join(dir, 'keep.txt'), 'mine');
    expect(await seedFromTemplate(dir, root)).toBe(false);
    expect(readdirSync(dir)).toEqual(['keep.txt']);
  });

  it('fails without a trace where no template can be made, and the caller falls back to initdb', async () => {
    const blocked = join(work, 'a-file');
    writeFileSync(blocked, '');
    const dir = join(work, 'fallback', 'pglite');
    await expect(seedFromTemplate(dir, join(blocked, 'templates'))).rejects.toThrow();
    expect(existsSync(join(work, 'fallback'))).toBe(false);
  });
});
