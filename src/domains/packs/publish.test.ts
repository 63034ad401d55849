import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { packageFile } from '../../kernel/package-files.ts';
import { openTestDatabase } from '../../../test/support/database.ts';
import { insertRuntimeAccount, insertRuntimeChain, type RuntimeChain } from '../../../test/support/runtime-records.ts';
import { lineCount } from './bulk.ts';
import { packContentHash } from './content-hash.ts';
import type { StoredPack } from './contract.ts';
import { loadPack, type ParsedPack } from './format/index.ts';
import { publishPack, unchangedVersion } from './publish.ts';
import { findPackVersion, latestPackVersionId, packVersionId } from './store.ts';
import { loadPackVersion, readSourceText } from './version-store.ts';

const PACK_TABLES = [
  'intelligence_packs',
  'intelligence_pack_versions',
  'intelligence_pack_texts',
  'intelligence_pack_sources',
  'intelligence_pack_source_versions',
  'intelligence_pack_assertions',
  'intelligence_pack_evidence',
  'intelligence_pack_insights',
];

/** A clock that a test moves on by hand. */
function testClock(start: string): Clock & { set(at: string): void } {
  let now = new Date(start);
  return { now: () => new Date(now), set: (at) => (now = new Date(at)) };
}

/** `db`, counting the statements its transactions run. */
function countingStatements(db: Database): { db: Database; statements: () => number } {
  let statements = 0;
  const counted = (tx: Sql): Sql => ({
    query: (text, params) => {
      statements += 1;
      return tx.query(text, params);
    },
    exec: (script) => tx.exec(script),
    afterCommit: (callback) => tx.afterCommit(callback),
  });
  const wrapped = new Proxy(db, {
    get: (target, key) => (key === 'transaction' ? (work: (tx: Sql) => Promise<unknown>) => target.transaction((tx) => work(counted(tx))) : (Reflect.get(target, key) as unknown)),
  });
  return { db: wrapped, statements: () => statements };
}

/**
 * A large pack: 12,000 assertions with two pieces of evidence each, so that those bulk statements run in several
 * chunks (the format's 50,000 assertions would take 5 statements, and their evidence 10, at the same cost per row).
 */
function largePack(product: string): ParsedPack {
  const lines = Array.from({ length: 200 }, (_, k) => `Line ${k + 1} of the standard.`);
  const text = `${lines.join('\n')}\n`;
  const assertions = Array.from({ length: 12_000 }, (_, k) => ({
    id: `a-${k}`,
    statement: `Statement ${k}.`,
    accepted: '2024-02-01',
    ...(k % 7 === 0 ? { retracted: '2024-06-01' } : {}),
    ...(k % 5 === 4 ? { supersedes: [`a-${k - 1}`, `a-${k - 2}`] } : {}),
    evidence: [
      { source: 'standard', version: '1', lines: [(k % 200) + 1, (k % 200) + 1] as [number, number], quote: lines[k % 200]! },
      { source: 'standard', version: '1', lines: [1, 2] as [number, number], quote: `${lines[0]} ${lines[1]}` },
    ],
  }));
  const insights = Array.from({ length: 2_000 }, (_, k) => ({ id: `i-${k}`, statement: `Insight ${k}.`, availableFrom: '2024-03-01', derivedFrom: [`a-${k}`, `a-${k + 1}`] }));
  return {
    pack: 1,
    product,
    slug: 'large',
    title: 'Large',
    sources: [{ id: 'standard', title: 'Standard', citation: 'https://standard.example/', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-15', extraction: 1, text }] }],
    assertions,
    insights,
  };
}

/** The parsed pack as a stored one holds it: without texts, with each source version's line count. */
function withoutTexts(pack: ParsedPack): Omit<StoredPack, 'info'> {
  return {
    sources: pack.sources.map((source) => ({
      ...source,
      versions: source.versions.map(({ text, ...version }) => ({ ...version, lineCount: lineCount(text) })),
    })),
    assertions: pack.assertions,
    insights: pack.insights,
  };
}

describe('publishing a pack version and loading it back', () => {
  let db: Database;
  let chain: RuntimeChain;
  let productSlug: string;
  let example: ParsedPack;
  const clock = testClock('2025-03-01T10:00:00.000Z');

  /** The example pack, under this test's product and the slug `slug`. */
  const examplePack = (slug = 'k8-math'): ParsedPack => ({ ...structuredClone(example), product: productSlug, slug });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: { code?: string }) => error.code,
    );
  const snapshot = async () => {
    const parts: unknown[] = [];
    for (const table of PACK_TABLES) parts.push(await db.query(`SELECT * FROM ${table} ORDER BY 1, 2`));
    return JSON.stringify(parts);
  };
  const count = async (table: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    chain = await insertRuntimeChain(db);
    productSlug = (await db.query<{ slug: string }>('SELECT slug FROM runtime_products WHERE id = $1', [chain.productId]))[0]!.slug;
    const loaded = await loadPack(packageFile('examples', 'packs', 'k8-math'));
    if (!loaded.ok) throw new Error(`the example pack does not load: ${JSON.stringify(loaded.problems)}`);
    example = loaded.pack;
  });
  afterAll(() => db.close());

  it('publishes the example pack as version 1 and loads it back as it was parsed, without texts', async () => {
    const pack = examplePack();
    const outcome = await publishPack(db, clock, pack, { kind: 'operator' });
    expect(outcome).toEqual({
      created: true,
      counts: { sources: 2, assertions: pack.assertions.length, insights: 2 },
      info: {
        versionId: expect.any(String),
        packId: expect.any(String),
        productId: chain.productId,
        productSlug,
        packSlug: 'k8-math',
        version: 1,
        title: pack.title,
        publishedAt: new Date('2025-03-01T10:00:00.000Z'),
      },
    });
    const stored = await loadPackVersion(db, outcome.info.versionId);
    expect(stored).toStrictEqual({ info: outcome.info, ...withoutTexts(pack) });
    // The optional fields the example uses survive, and are absent where the files leave them out.
    expect(stored!.assertions.some((a) => a.retracted !== undefined)).toBe(true);
    expect(stored!.assertions.some((a) => (a.supersedes?.length ?? 0) > 0)).toBe(true);
    expect(stored!.assertions.some((a) => !('retracted' in a) && !('supersedes' in a))).toBe(true);
    // Dates come back as written, whatever the time zone of the process or the server.
    expect(stored!.sources[0]!.versions[0]).toMatchObject({ version: '2017', published: '2017-06-01', reported: '2024-01-15', extraction: 1 });
    const [row] = await db.query('SELECT content_hash, published_by, source_count FROM intelligence_pack_versions WHERE id = $1', [outcome.info.versionId]);
    expect(row).toEqual({ content_hash: packContentHash(pack), published_by: 'operator', source_count: 2 });
  });

  it('reads a source version text back exactly, and nothing for what the version does not hold', async () => {
    const versionId = (await latestPackVersionId(db, productSlug, 'k8-math'))!;
    const source = example.sources[0]!;
    expect(await readSourceText(db, versionId, source.id, source.versions[1]!.version)).toBe(source.versions[1]!.text);
    expect(await readSourceText(db, versionId, source.id, 'no-such-version')).toBeUndefined();
    expect(await readSourceText(db, versionId, 'no-such-source', '2017')).toBeUndefined();
    expect(await readSourceText(db, 'not-a-uuid', source.id, '2017')).toBeUndefined();
    expect(await loadPackVersion(db, 'not-a-uuid')).toBeUndefined();
    expect(await loadPackVersion(db, '00000000-0000-7000-8000-000000000000')).toBeUndefined();
  });

  it('answers an identical republication with the version that holds it, storing nothing', async () => {
    const before = await snapshot();
    clock.set('2025-03-02T10:00:00.000Z');
    const again = await publishPack(db, clock, examplePack(), { kind: 'account', accountId: chain.adminAccountId });
    expect(again).toMatchObject({ created: false, info: { version: 1, publishedAt: new Date('2025-03-01T10:00:00.000Z') } });
    expect(await snapshot()).toBe(before);
  });

  it('finds an unchanged republication without a lock or a write, for its publishers only; changed content is not one', async () => {
    const before = await snapshot();
    const pack = examplePack();
    const hash = packContentHash(pack);
    const found = await unchangedVersion(db, pack, { kind: 'account', accountId: chain.adminAccountId }, hash);
    expect(found).toEqual(await publishPack(db, clock, pack, { kind: 'account', accountId: chain.adminAccountId }));
    expect(found).toMatchObject({ created: false, info: { version: 1 } });
    const retitled = { ...pack, title: `${pack.title} (revised)` };
    expect(await unchangedVersion(db, retitled, { kind: 'operator' }, packContentHash(retitled))).toBeUndefined();
    expect(await unchangedVersion(db, pack, { kind: 'operator' }, 'f'.repeat(64))).toBeUndefined();
    // Someone who may not publish to the product learns nothing, as from publishPack.
    const outsider = await insertRuntimeAccount(db, 'pack-outsider');
    await expect(unchangedVersion(db, pack, { kind: 'account', accountId: outsider }, hash)).rejects.toMatchObject({ code: 'not_found' });
    expect(await snapshot()).toBe(before);
  });

  it('stores changed content as version 2, leaves version 1 as it was, and stores a shared text once', async () => {
    const v1 = (await packVersionId(db, productSlug, 'k8-math', 1))!;
    const v1Before = await loadPackVersion(db, v1);
    const texts = await count('intelligence_pack_texts');
    const changed = examplePack();
    changed.title = 'Riverton K-8 mathematics, revised';
    changed.assertions[0]!.statement = 'A changed statement.';
    changed.assertions.pop();
    clock.set('2025-03-03T10:00:00.000Z');
    const outcome = await publishPack(db, clock, changed, { kind: 'account', accountId: chain.adminAccountId });
    expect(outcome).toMatchObject({ created: true, info: { version: 2, title: changed.title }, counts: { assertions: example.assertions.length - 1 } });
    expect(await loadPackVersion(db, outcome.info.versionId)).toStrictEqual({ info: outcome.info, ...withoutTexts(changed) });
    expect(await loadPackVersion(db, v1)).toStrictEqual(v1Before);
    // The three texts are the same in both versions: stored once.
    expect(await count('intelligence_pack_texts')).toBe(texts);
    const [row] = await db.query('SELECT published_by FROM intelligence_pack_versions WHERE id = $1', [outcome.info.versionId]);
    expect(row).toEqual({ published_by: `account:${chain.adminAccountId}` });
    expect((await findPackVersion(db, productSlug, 'k8-math'))?.version).toBe(2);
    expect((await findPackVersion(db, productSlug, 'k8-math', 1))?.versionId).toBe(v1);
    expect(await findPackVersion(db, productSlug, 'k8-math', 3)).toBeUndefined();
    expect(await findPackVersion(db, productSlug, 'k8-math', 0)).toBeUndefined();
    expect(await findPackVersion(db, productSlug, 'no-such-pack')).toBeUndefined();
    expect(await findPackVersion(db, 'no-such-product', 'k8-math')).toBeUndefined();
  });

  it('stores a changed text as a new text and the unchanged ones not again', async () => {
    const texts = await count('intelligence_pack_texts');
    const changed = examplePack();
    const version = changed.sources[1]!.versions[0]!;
    version.text = `${version.text}\nAn added closing line.\n`;
    const outcome = await publishPack(db, clock, changed, { kind: 'operator' });
    expect(outcome.info.version).toBe(3);
    expect(await count('intelligence_pack_texts')).toBe(texts + 1);
    const stored = await loadPackVersion(db, outcome.info.versionId);
    expect(stored!.sources[1]!.versions[0]!.lineCount).toBe(lineCount(version.text));
    const [text] = await db.query<{ hash: string }>(
      `SELECT text_hash AS hash FROM intelligence_pack_source_versions WHERE pack_version_id = $1 AND source_id = $2`,
      [outcome.info.versionId, changed.sources[1]!.id],
    );
    expect(text!.hash).toBe(sha256Hex(Buffer.from(version.text, 'utf8')));
  });

  /** Publishes two different contents of the pack `slug` at once; both must be stored, as consecutive versions. */
  async function race(slug: string, expected: number[]) {
    const first = examplePack(slug);
    first.title = `First content of ${slug}`;
    const second = examplePack(slug);
    second.title = `Second content of ${slug}`;
    const outcomes = await Promise.all([publishPack(db, clock, first, { kind: 'operator' }), publishPack(db, clock, second, { kind: 'operator' })]);
    expect(outcomes.map((o) => o.created)).toEqual([true, true]);
    expect(outcomes.map((o) => o.info.version).sort()).toEqual(expected);
    expect(new Set(outcomes.map((o) => o.info.packId)).size).toBe(1);
    const rows = await db.query<{ version: number; title: string }>(
      `SELECT v.version, v.title FROM intelligence_pack_versions v JOIN intelligence_packs k ON k.id = v.pack_id WHERE k.slug = $1 AND v.version = ANY($2::int[]) ORDER BY v.version`,
      [slug, expected],
    );
    expect(rows.map((row) => row.version)).toEqual(expected);
    expect(rows.map((row) => row.title).sort()).toEqual([first.title, second.title]);
  }

  it('gives two racing first publications of a new pack versions 1 and 2, neither failing', async () => {
    await race('raced', [1, 2]);
  });

  it('gives two racing publications of an existing pack the next two versions, neither failing', async () => {
    await publishPack(db, clock, examplePack('raced-again'), { kind: 'operator' });
    await race('raced-again', [2, 3]);
  });

  it('refuses an unknown product and an account that does not administer the product, storing nothing', async () => {
    const customer = chain.customerAccountId;
    const stranger = await insertRuntimeAccount(db, 'stranger');
    const other = await insertRuntimeChain(db);
    const before = await snapshot();
    // Thunks, run one at a time: promises made up front would reject before their handler is attached.
    const refusals: [string, () => Promise<unknown>][] = [
      ['unknown product', () => publishPack(db, clock, { ...examplePack('new-pack'), product: 'no-such-product' }, { kind: 'operator' })],
      ['customer', () => publishPack(db, clock, examplePack('new-pack'), { kind: 'account', accountId: customer })],
      ['stranger', () => publishPack(db, clock, examplePack('new-pack'), { kind: 'account', accountId: stranger })],
      ['admin of another organization', () => publishPack(db, clock, examplePack('new-pack'), { kind: 'account', accountId: other.adminAccountId })],
      ['not an account id', () => publishPack(db, clock, examplePack('new-pack'), { kind: 'account', accountId: 'not-a-uuid' })],
      ['changed content, by a customer', () => publishPack(db, clock, { ...examplePack(), title: 'Other' }, { kind: 'account', accountId: customer })],
    ];
    for (const [label, refusal] of refusals) {
      const error = await refusal().then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      );
      expect({ label, code: error?.code, message: error?.message }).toEqual({ label, code: 'not_found', message: 'The product does not exist.' });
    }
    expect(await snapshot()).toBe(before);
    expect(await codeOf(publishPack(db, clock, { ...examplePack(), product: 'no-such-product' }, { kind: 'operator' }))).toBe('not_found');
  });

  it('refuses any UPDATE of a stored pack row (the immutability trigger), changing nothing', async () => {
    const before = await snapshot();
    const updates = [
      `UPDATE intelligence_pack_versions SET title = 'changed'`,
      `UPDATE intelligence_pack_texts SET text = 'changed'`,
      `UPDATE intelligence_pack_sources SET title = 'changed'`,
      `UPDATE intelligence_pack_source_versions SET line_count = 1`,
      `UPDATE intelligence_pack_assertions SET statement = 'changed'`,
      `UPDATE intelligence_pack_evidence SET quote = 'changed'`,
      `UPDATE intelligence_pack_insights SET statement = 'changed'`,
    ];
    for (const update of updates) {
      const failure = await db.query(update).then(
        () => 'updated',
        (error: Error) => error.message,
      );
      expect({ update, refused: /immutable/.test(failure) }).toEqual({ update, refused: true });
    }
    expect(await snapshot()).toBe(before);
  });

  it('stores 12,000 assertions with 24,000 pieces of evidence in a handful of statements, and loads them back', async () => {
    const pack = largePack(productSlug);
    const counting = countingStatements(db);
    const outcome = await publishPack(counting.db, clock, pack, { kind: 'operator' });
    // Product, pack row, its lock and latest version; the version row, texts, sources, source versions; assertions,
    // evidence and insights in chunks of 10,000 rows.
    expect(counting.statements()).toBe(4 + 4 + 2 + 3 + 1);
    expect(await loadPackVersion(db, outcome.info.versionId)).toStrictEqual({ info: outcome.info, ...withoutTexts(pack) });
  });
});
