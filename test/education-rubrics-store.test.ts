import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEducationRubricsService, type EducationRubricsService, type RubricAuthor, type RubricContent } from '../src/domains/education/rubrics/index.ts';
import type { Database } from '../src/db/port.ts';
import { newId } from '../src/kernel/ids.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { codeOf, openRuntimeAdminSuite, type RuntimeAdminSuite } from './support/runtime-admin.ts';

// The rubric store (migration 0025) on its own: versions numbered under the rubric's lock (racing drafts become n
// and n+1), shown only once their metered call settled (linked to its ledger row), immutable, one per key, one
// installation never sees another's, and a person's mark only by the installing account, refused when stale.

const content = (title: string, weight = 100): RubricContent => ({
  title,
  levelLabels: ['Meets', 'Approaching'],
  criteria: [{ name: 'Claim', weight, descriptors: [{ level: 'Meets', text: 'States a claim.' }, { level: 'Approaching', text: 'Implies a claim.' }], alignment: [{ code: 'W.7.1' }] }],
  accessibility: [],
});

async function rows(db: Database): Promise<string> {
  return JSON.stringify([
    await db.query('SELECT * FROM education_rubrics ORDER BY id'),
    await db.query('SELECT * FROM education_rubric_versions ORDER BY rubric_id, version'),
  ]);
}

describe('rubric drafts store', () => {
  let suite: RuntimeAdminSuite;
  let rubrics: EducationRubricsService;
  let author: RubricAuthor;
  let other: RubricAuthor;
  let stranger: Owner;
  let keys = 0;
  const call = () => ({ idempotencyKey: `key-${++keys}`, requestId: `req-${keys}` });

  /** Stores and settles a draft, as the operation does. */
  async function draft(who: RubricAuthor, rubricId: string | undefined, title: string): Promise<{ rubricId: string; version: number }> {
    const c = call();
    const stored = await rubrics.storeDraft(who, c, { ...(rubricId ? { rubricId } : {}), basedOnVersion: null, content: content(title) });
    await rubrics.linkLedger(who.principalId, c.idempotencyKey, newId());
    return stored;
  }

  beforeAll(async () => {
    suite = await openRuntimeAdminSuite('rubric-store');
    rubrics = createEducationRubricsService(suite.db);
    const mine = await suite.admin.install(suite.owner.accountId, suite.product.slug);
    stranger = await createOwner(suite.services, 'rubric-stranger');
    const theirs = await suite.admin.install(stranger.accountId, suite.product.slug);
    author = { organizationId: suite.organization.id, installationId: mine.id, principalId: newId(), principalName: 'Planner backend' };
    other = { organizationId: suite.organization.id, installationId: theirs.id, principalId: newId(), principalName: 'Other backend' };
  });
  afterAll(() => suite.db.close());

  it('shows a version only once its call settled', async () => {
    const c = call();
    const { rubricId, version } = await rubrics.storeDraft(author, c, { basedOnVersion: null, content: content('Argument') });
    expect(version).toBe(1);
    expect(await codeOf(rubrics.getRubric(author.installationId, rubricId))).toBe('not_found');
    const ledgerId = newId();
    await rubrics.linkLedger(author.principalId, c.idempotencyKey, ledgerId);
    await rubrics.linkLedger(author.principalId, c.idempotencyKey, newId()); // a second link changes nothing
    const found = await rubrics.getRubric(author.installationId, rubricId);
    expect(found.rubric).toMatchObject({ rubricId, title: 'Argument', latestVersion: 1 });
    expect(found.versions).toEqual([expect.objectContaining({ version: 1, status: 'proposed', review: null, ledgerId, requestId: c.requestId, createdBy: { principalId: author.principalId, name: 'Planner backend' } })]);
    expect(await rubrics.startingPoint(author.installationId, rubricId)).toEqual({ version: 1, content: content('Argument') });
  });

  it('numbers racing drafts of one rubric n, n+1, ... and loses none', async () => {
    const { rubricId } = await draft(author, undefined, 'Race');
    const stored = await Promise.all(Array.from({ length: 6 }, (_, k) => draft(author, rubricId, `Race ${k}`)));
    expect(stored.map((s) => s.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    const { versions } = await rubrics.getRubric(author.installationId, rubricId);
    expect(versions.map((v) => v.version)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const onPage = (await rubrics.rubricsOfAccount(suite.owner.accountId))[0]!.rubrics.find((r) => r.rubric.rubricId === rubricId);
    expect(onPage).toMatchObject({ truncated: false, rubric: { latestVersion: 7 } });
    expect(onPage!.versions.map((v) => v.version)).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  it('keeps versions immutable and stores one version per key', async () => {
    const { rubricId } = await draft(author, undefined, 'Fixed');
    const before = await rows(suite.db);
    await expect(suite.db.query(`UPDATE education_rubric_versions SET content = '{}' WHERE rubric_id = $1`, [rubricId])).rejects.toThrow(/immutable/);
    const again = { idempotencyKey: `key-${keys}`, requestId: 'another' };
    await expect(rubrics.storeDraft(author, again, { rubricId, basedOnVersion: 1, content: content('Twice') })).rejects.toThrow();
    expect(await rows(suite.db)).toBe(before);
  });

  it('answers not_found for another installation\u2019s rubric, and for a guessed one', async () => {
    const { rubricId } = await draft(other, undefined, 'Theirs');
    for (const id of [rubricId, newId()]) {
      expect(await codeOf(rubrics.getRubric(author.installationId, id))).toBe('not_found');
      expect(await codeOf(rubrics.startingPoint(author.installationId, id))).toBe('not_found');
    }
    expect((await rubrics.listRubrics(author.installationId, { limit: 50 })).items.map((r) => r.rubricId)).not.toContain(rubricId);
  });

  it('pages the installation\u2019s rubrics with a cursor, and refuses a forged one', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rubrics.listRubrics(author.installationId, { limit: 2, cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((r) => r.rubricId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const all = await rubrics.listRubrics(author.installationId, { limit: 50 });
    expect(seen).toEqual(all.items.map((r) => r.rubricId));
    expect(new Set(seen).size).toBe(seen.length);
    expect(await codeOf(rubrics.listRubrics(author.installationId, { limit: 2, cursor: 'bm90LWEtY3Vyc29y' }))).toBe('invalid_request');
  });

  it('lets only the installing account mark a version, refuses a stale mark, and changes nothing on refusal', async () => {
    const { rubricId } = await draft(author, undefined, 'Marked');
    const before = await rows(suite.db);
    const refusals: Array<[string, () => Promise<void>]> = [
      ['not_found', () => rubrics.markVersion(stranger.accountId, { rubricId, version: 1, mark: 'reviewed', expected: null })],
      ['not_found', () => rubrics.markVersion(suite.orgAdmin.accountId, { rubricId, version: 1, mark: 'reviewed', expected: null })],
      ['not_found', () => rubrics.markVersion(suite.owner.accountId, { rubricId, version: 2, mark: 'reviewed', expected: null })],
      ['conflict', () => rubrics.markVersion(suite.owner.accountId, { rubricId, version: 1, mark: 'reviewed', expected: 'dismissed' })],
    ];
    for (const [code, refuse] of refusals) expect(await codeOf(refuse())).toBe(code);
    expect(await rows(suite.db)).toBe(before);
    await rubrics.markVersion(suite.owner.accountId, { rubricId, version: 1, mark: 'reviewed', expected: null });
    expect(await codeOf(rubrics.markVersion(suite.owner.accountId, { rubricId, version: 1, mark: 'dismissed', expected: null }))).toBe('conflict');
    const [version] = (await rubrics.getRubric(author.installationId, rubricId)).versions;
    expect(version).toMatchObject({ review: 'reviewed', content: content('Marked') });
    expect(version!.reviewedAt).not.toBeNull();
    const page = await rubrics.rubricsOfAccount(suite.owner.accountId);
    expect(page).toHaveLength(1);
    expect(page[0]!.rubrics.map((r) => r.rubric.rubricId)).toContain(rubricId);
    expect(await rubrics.rubricsOfAccount(suite.orgAdmin.accountId)).toEqual([]);
  });
});
