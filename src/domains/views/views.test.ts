import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { NoteAction } from '../notes/index.ts';
import type { AuthorizedScope } from '../scopes/index.ts';
import { MAX_DEFINITION_BYTES, MAX_FINDINGS_PER_WATCH, MAX_WATCH_MATCHES } from './contract.ts';

// Saved views, watches and findings over the real notes and knowledge services: versions and pins, one scope's
// views only, watches run by governed writes in their scope and not by others, bounds, and people-only reviews.
describe('saved views, watches and findings', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let alpha: AuthorizedScope;
  let beta: AuthorizedScope;
  let now = new Date('2026-11-25T09:00:00Z');
  const clock: Clock = { now: () => now };
  const tick = () => (now = new Date(now.getTime() + 60_000));
  const hashes = new Map<string, string>();

  const person = (): Actor => ({ accountId: owner.accountId, credentialKind: 'session' });

  async function write(path: string, content: string): Promise<void> {
    tick();
    const before = hashes.get(path);
    const actions: NoteAction[] = [{ type: 'write-note', path, content, ...(before ? { expectedHash: before } : {}) }];
    await services.idempotency.run({ accountId: owner.accountId, key: randomUUID(), operation: 'test', input: actions }, (commit) =>
      services.notes.runTransaction({ actor: owner.actor, mappingId: owner.mapping.id, dryRun: false, actions, capability: 'direct', commit }),
    );
    hashes.set(path, contentHash(content));
  }

  const tasks = (...lines: string[]) => `# Tasks\n\n${lines.join('\n')}\n`;
  const snapshot = async () =>
    JSON.stringify(
      await Promise.all(
        ['knowledge_views', 'knowledge_view_versions', 'knowledge_watches', 'knowledge_watch_matches', 'knowledge_watch_findings'].map((t) => db.query(`SELECT * FROM ${t} ORDER BY 1, 2`)),
      ),
    );

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('views', clock));
    const scope = async (name: string, folder: string) => {
      const made = await services.scopes.create(owner.actor, owner.mapping.id, { name, pathPrefixes: [folder], tags: [], audience: { minimumRole: 'viewer', agents: true } });
      return services.scopes.authorize(owner.actor, owner.mapping.id, made.id);
    };
    alpha = await scope('Alpha', 'Alpha');
    beta = await scope('Beta', 'Beta');
    await write('Alpha/Tasks.md', tasks('- [ ] Ship the pilot [owner:: Ana] 📅 2026-12-01 ^ship', '- [ ] Order tablets [owner:: Jonas] 📅 2026-12-20'));
    await write('Beta/Tasks.md', tasks('- [ ] Beta chore [owner:: Ana] 📅 2026-12-02'));
  });
  afterAll(() => db.close());

  it('versions a view: an edit makes a new version, the tool answers the latest unless a version is pinned', async () => {
    const made = await services.views.create(owner.actor, alpha, { name: 'Ana’s work', definition: { kinds: ['commitment'], owner: 'ana' } });
    expect(made.version).toMatchObject({ version: 1, name: 'Ana’s work', definition: { kinds: ['commitment'], statuses: ['candidate', 'confirmed', 'open', 'superseded'], owner: 'ana', sort: 'path', limit: 50 } });
    const v1 = await services.views.query(alpha, { viewId: made.view.id });
    expect(v1.page.items).toHaveLength(1);
    expect(v1.page.items[0]).toMatchObject({ kind: 'commitment', status: 'open', owner: 'Ana', due: '2026-12-01', evidence: { path: 'Alpha/Tasks.md', lines: [3, 3] } });

    tick();
    const v2 = await services.views.revise(owner.actor, alpha, made.view.id, { name: 'Everyone’s work', definition: { kinds: ['commitment'], sort: 'due' } });
    expect(v2.version.version).toBe(2);
    const latest = await services.views.query(alpha, { viewId: made.view.id });
    expect([latest.version.version, latest.version.name, latest.page.items.map((r) => r.owner)]).toEqual([2, 'Everyone’s work', ['Ana', 'Jonas']]);
    const pinned = await services.views.query(alpha, { viewId: made.view.id, version: 1 });
    expect([pinned.version.version, pinned.version.name, pinned.page.items.map((r) => r.owner)]).toEqual([1, 'Ana’s work', ['Ana']]);
    // Version 1 is unchanged by the edit; an identical edit makes no version; an unknown version is not_found.
    expect((await services.views.versions(alpha, made.view.id)).versions.map((v) => [v.version, v.name])).toEqual([[2, 'Everyone’s work'], [1, 'Ana’s work']]);
    const before = await snapshot();
    await expect(services.views.revise(owner.actor, alpha, made.view.id, { name: 'Everyone’s work', definition: { kinds: ['commitment'], sort: 'due', statuses: ['open', 'confirmed', 'candidate', 'superseded'] } })).rejects.toMatchObject({ code: 'conflict' });
    await expect(services.views.query(alpha, { viewId: made.view.id, version: 3 })).rejects.toMatchObject({ code: 'not_found' });
    // Paging: one record a page, then the next after the cursor.
    const first = await services.views.query(alpha, { viewId: made.view.id, limit: 1 });
    expect([first.page.items.length, first.page.truncated]).toEqual([1, true]);
    const second = await services.views.query(alpha, { viewId: made.view.id, limit: 1, cursor: first.page.nextCursor! });
    expect([second.page.items[0]!.owner, second.page.truncated, second.page.nextCursor]).toEqual(['Jonas', false, null]);
    await expect(services.views.query(alpha, { viewId: made.view.id, cursor: 'bm90IG91cnM' })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await snapshot()).toBe(before);
  });

  it("answers not_found for another scope's view, a guessed id and a malformed one, alike, and changes nothing", async () => {
    const betaView = await services.views.create(owner.actor, beta, { name: 'Beta work', definition: { kinds: ['commitment'] } });
    const before = await snapshot();
    for (const viewId of [betaView.view.id, randomUUID(), 'not-a-uuid', `${betaView.view.id.slice(0, -1)}0`]) {
      const answers = await Promise.allSettled([
        services.views.query(alpha, { viewId }),
        services.views.versions(alpha, viewId),
        services.views.revise(owner.actor, alpha, viewId, { name: 'Taken over', definition: { kinds: ['decision'] } }),
        services.views.remove(owner.actor, alpha, viewId),
        services.views.createWatch(owner.actor, alpha, { viewId, version: null }),
      ]);
      for (const answer of answers) {
        expect(answer.status).toBe('rejected');
        expect((answer as PromiseRejectedResult).reason).toMatchObject({ code: 'not_found', message: 'No such saved view in this scope, or it is not available to you.' });
      }
    }
    expect(await snapshot()).toBe(before);
    // Beta's view still answers in Beta, from Beta's notes only.
    expect((await services.views.query(beta, { viewId: betaView.view.id })).page.items.map((r) => r.evidence.path)).toEqual(['Beta/Tasks.md']);
  });

  it('refuses malformed, oversized and contradictory definitions and names, and viewers, with nothing stored', async () => {
    const before = await snapshot();
    const refusals: Array<[unknown, unknown]> = [
      ['Empty kinds', { kinds: [] }],
      ['Unknown kind', { kinds: ['secret'] }],
      ['SQL', { kinds: ['decision'], where: '1=1; DROP TABLE notes' }],
      ['Limit too high', { kinds: ['decision'], limit: 201 }],
      ['Text too long', { kinds: ['decision'], text: 'x'.repeat(201) }],
      ['Oversized', { kinds: ['decision'], text: 'x'.repeat(MAX_DEFINITION_BYTES) }],
      ['Backwards dates', { kinds: ['commitment'], dueAfter: '2026-12-31', dueBefore: '2026-01-01' }],
      ['Bad date', { kinds: ['commitment'], dueBefore: 'tomorrow' }],
      ['', { kinds: ['decision'] }],
      ['x'.repeat(101), { kinds: ['decision'] }],
      ['Bell\u0007', { kinds: ['decision'] }],
      ['Not an object', 'kinds=decision'],
    ];
    for (const [name, definition] of refusals) {
      await expect(services.views.create(owner.actor, alpha, { name, definition }), String(name)).rejects.toMatchObject({ code: 'invalid_request' });
    }
    await expect(services.views.create(owner.actor, alpha, { name: 'everyone’s WORK', definition: { kinds: ['decision'] } })).rejects.toMatchObject({ code: 'conflict' });
    await expect(services.views.create(owner.actor, { ...alpha, role: 'viewer' }, { name: 'Viewer view', definition: { kinds: ['decision'] } })).rejects.toMatchObject({ code: 'forbidden' });
    expect(await snapshot()).toBe(before);
  });

  it('a watch records findings when a governed write changes its scope, and nothing when another scope changes', async () => {
    const view = await services.views.create(owner.actor, alpha, { name: 'Open in Alpha', definition: { kinds: ['commitment'] } });
    const pinnedView = await services.views.create(owner.actor, alpha, { name: 'Ana in Alpha', definition: { kinds: ['commitment'], owner: 'Ana' } });
    const watch = await services.views.createWatch(owner.actor, alpha, { viewId: view.view.id, version: null });
    const pinned = await services.views.createWatch(owner.actor, alpha, { viewId: pinnedView.view.id, version: 1 });
    expect(watch.counts).toEqual({ new: 0, acknowledged: 0, dismissed: 0, resolved: 0 });
    const findings = async (watchId: string) => (await services.views.findings(alpha, { watchId })).items.map((f) => [f.change, f.record.title, f.state]);

    // Another scope changes: no watch of Alpha records anything.
    await write('Beta/Tasks.md', tasks('- [ ] Beta chore [owner:: Ana] 📅 2026-12-02', '- [ ] Another Beta chore'));
    expect(await findings(watch.id)).toEqual([]);

    // Alpha changes: a new task matches, a closed one stops matching, a re-dated one changed.
    await write('Alpha/Tasks.md', tasks('- [x] Ship the pilot [owner:: Ana] 📅 2026-12-01 ^ship', '- [ ] Order tablets [owner:: Jonas] 📅 2026-12-21', '- [ ] Brief the crews [owner:: Ana]'));
    const got = await findings(watch.id);
    expect(got).toHaveLength(3);
    expect(got).toEqual(
      expect.arrayContaining([
        ['matched', 'Brief the crews [owner:: Ana]', 'new'],
        ['unmatched', expect.stringContaining('Ship the pilot'), 'new'],
      ]),
    );
    expect(got.filter(([change]) => change === 'changed')).toHaveLength(1);
    const [newest] = (await services.views.findings(alpha, { watchId: watch.id })).items;
    expect(newest).toMatchObject({ viewId: view.view.id, viewName: 'Open in Alpha', viewVersion: 1, record: { evidence: { path: 'Alpha/Tasks.md' } } });

    // The pinned watch runs version 1 (Ana's): the closed task left it, the new one of Ana's joined.
    expect((await findings(pinned.id)).map(([c]) => c).sort()).toEqual(['matched', 'unmatched']);

    // A new version of the followed view re-baselines its watch (no findings about the definition); the pinned one is unaffected.
    await services.views.revise(owner.actor, alpha, pinnedView.view.id, { name: 'Jonas in Alpha', definition: { kinds: ['commitment'], owner: 'Jonas' } });
    await services.views.revise(owner.actor, alpha, view.view.id, { name: 'All tasks in Alpha', definition: { kinds: ['commitment'], statuses: ['open', 'closed'] } });
    expect(await findings(watch.id)).toHaveLength(3);
    await write('Alpha/Tasks.md', tasks('- [x] Ship the pilot [owner:: Ana] 📅 2026-12-01 ^ship', '- [ ] Order tablets [owner:: Jonas] 📅 2026-12-21', '- [ ] Brief the crews [owner:: Ana]', 'More text.'));
    expect(await findings(watch.id)).toHaveLength(3);
    expect((await services.views.findings(alpha, { watchId: pinned.id })).items.every((f) => f.viewVersion === 1)).toBe(true);
  });

  it('only a signed-in person with a writing role moves a finding, from the state they saw', async () => {
    const [finding] = (await services.views.findings(alpha, { states: ['new'] })).items;
    const before = await snapshot();
    for (const actor of [owner.actor, { ...owner.actor, credentialKind: 'oauth' as const }]) {
      await expect(services.views.reviewFinding(actor, alpha, { findingId: finding!.id, state: 'acknowledged', seen: 'new' })).rejects.toMatchObject({ code: 'forbidden' });
    }
    await expect(services.views.reviewFinding(person(), { ...alpha, role: 'viewer' }, { findingId: finding!.id, state: 'acknowledged', seen: 'new' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(services.views.reviewFinding(person(), alpha, { findingId: finding!.id, state: 'new', seen: 'new' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(services.views.reviewFinding(person(), alpha, { findingId: finding!.id, state: 'resolved', seen: 'dismissed' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(services.views.reviewFinding(person(), beta, { findingId: finding!.id, state: 'resolved', seen: 'new' })).rejects.toMatchObject({ code: 'not_found' });
    expect(await snapshot()).toBe(before);
    const moved = await services.views.reviewFinding(person(), alpha, { findingId: finding!.id, state: 'acknowledged', seen: 'new' });
    expect(moved).toMatchObject({ state: 'acknowledged', stateChangedAt: now.toISOString() });
    await expect(services.views.reviewFinding(person(), alpha, { findingId: finding!.id, state: 'resolved', seen: 'new' })).rejects.toMatchObject({ code: 'conflict' });
    expect((await services.views.reviewFinding(person(), alpha, { findingId: finding!.id, state: 'resolved', seen: 'acknowledged' })).state).toBe('resolved');
  });

  it('bounds a watch: a view matching too many records records nothing, and findings stop at their cap with a count of the dropped', async () => {
    const gamma = await services.scopes.create(owner.actor, owner.mapping.id, { name: 'Gamma', pathPrefixes: ['Gamma'], tags: [], audience: { minimumRole: 'viewer', agents: true } });
    const scope = await services.scopes.authorize(owner.actor, owner.mapping.id, gamma.id);
    const view = await services.views.create(owner.actor, scope, { name: 'All', definition: { kinds: ['commitment'], statuses: ['open', 'closed'] } });
    const watch = await services.views.createWatch(owner.actor, scope, { viewId: view.view.id, version: null });
    const many = (n: number, word: string) => tasks(...Array.from({ length: n }, (_, i) => `- [ ] ${word} ${i}`));

    await write('Gamma/Many.md', many(MAX_WATCH_MATCHES + 1, 'Task'));
    let [state] = (await services.views.watches(scope)).filter((w) => w.id === watch.id);
    expect([state!.overLimit, state!.counts.new]).toEqual([true, 0]);

    // Back within the limit: a new baseline, not hundreds of "new" findings.
    await write('Gamma/Many.md', many(MAX_FINDINGS_PER_WATCH, 'Task'));
    [state] = (await services.views.watches(scope)).filter((w) => w.id === watch.id);
    expect([state!.overLimit, state!.counts.new]).toEqual([false, 0]);

    // Every task replaced: MAX_FINDINGS_PER_WATCH stopped matching and as many began; the cap keeps the first.
    await write('Gamma/Many.md', many(MAX_FINDINGS_PER_WATCH, 'Chore'));
    [state] = (await services.views.watches(scope)).filter((w) => w.id === watch.id);
    expect([state!.counts.new, state!.droppedFindings]).toEqual([MAX_FINDINGS_PER_WATCH, MAX_FINDINGS_PER_WATCH]);
  });
});
