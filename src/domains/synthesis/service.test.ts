import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { Actor, CredentialKind } from '../../kernel/principal.ts';
import type { NoteAction } from '../notes/index.ts';
import type { AuthorizedScope } from '../scopes/index.ts';
import type { Section } from './contract.ts';

// The living brief: built deterministically from records, stale when its evidence changes, accepted only by a person.
describe('living synthesis', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let scope: AuthorizedScope;
  let now = new Date('2026-11-25T09:00:00Z');
  const clock: Clock = { now: () => now };
  const person = (): Actor => ({ accountId: owner.accountId, credentialKind: 'session' });

  const NOTES: Record<string, string> = {
    'Projects/ADR-1.md': '---\ntype: decision\nstatus: accepted\ndecided: 2026-10-01\n---\n# Use SQLite\n',
    'Projects/Plan.md': '# Plan\n\n- [ ] Ship the pilot [owner:: Ana] 📅 2026-12-01\n- [ ] Undated follow-up\n\n> [!question] Who pays for tiles?\n',
    'Projects/Tidewater.md': '---\ntype: project\nid: tidewater\nstatus: planning\n---\n# Tidewater\n',
    'Projects/ADR-2.md': '---\ntype: decision\nstatus: proposed\ncontradicts: "[[ADR-1]]"\n---\n# Use CouchDB\n',
    'Elsewhere/Other.md': '# Other\n\n- [ ] Not in the scope\n',
  };

  const apply = (actions: NoteAction[]) =>
    services.idempotency.run({ accountId: owner.accountId, key: randomUUID(), operation: 'test', input: actions }, (commit) =>
      services.notes.runTransaction({ actor: owner.actor, mappingId: owner.mapping.id, dryRun: false, actions, capability: 'direct', commit }),
    );
  const edit = async (path: string, content: string) => {
    await apply([{ type: 'write-note', path, content, expectedHash: contentHash(NOTES[path]!) }]);
    NOTES[path] = content;
  };
  const states = (sections: Section[]) => Object.fromEntries(sections.map((s) => [s.section, s.state]));
  const rows = async () => JSON.stringify([await db.query('SELECT * FROM synthesis_sections ORDER BY section'), await db.query('SELECT * FROM synthesis_section_events ORDER BY id')]);

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('synthesis', clock));
    await apply(Object.entries(NOTES).map(([path, content]) => ({ type: 'write-note' as const, path, content })));
    const made = await services.scopes.create(person(), owner.mapping.id, { name: 'Projects', pathPrefixes: ['Projects'], tags: [], audience: { minimumRole: 'viewer', agents: true } });
    scope = await services.scopes.authorize(person(), owner.mapping.id, made.id);
  });
  afterAll(() => db.close());

  it('reads every section unbuilt, and builds them deterministically: the same records give the same text and fingerprint', async () => {
    const before = await services.synthesis.read(scope);
    expect(before.map((s) => [s.section, s.state, s.trusted])).toEqual([
      ['confirmed-decisions', 'unbuilt', false],
      ['candidate-decisions', 'unbuilt', false],
      ['open-questions', 'unbuilt', false],
      ['open-commitments', 'unbuilt', false],
      ['tensions', 'unbuilt', false],
      ['current-facts', 'unbuilt', false],
    ]);
    const built = await services.synthesis.rebuild(person(), scope);
    expect(built.every((s) => s.state === 'draft' && !s.trusted && s.build?.method === 'deterministic' && s.build.number === 1)).toBe(true);
    expect(built.map((s) => s.currentFingerprint)).toEqual(before.map((s) => s.currentFingerprint));
    const commitments = built.find((s) => s.section === 'open-commitments')!;
    expect(commitments.build!.text).toBe(
      '## Open commitments\n- Ship the pilot [owner:: Ana] 📅 2026-12-01 (owner Ana, due 2026-12-01) [Projects/Plan.md, line 3]\n- Undated follow-up (no owner, no due date) [Projects/Plan.md, line 4]',
    );
    expect(commitments.build!.items[0]).toMatchObject({ kind: 'commitment', evidence: { path: 'Projects/Plan.md', revision: contentHash(NOTES['Projects/Plan.md']!), lines: [3, 3] } });
    expect(built.find((s) => s.section === 'candidate-decisions')!.build!.text).toContain('Use SQLite: candidate, not confirmed by anyone (the note says “accepted”)');
    expect(built.find((s) => s.section === 'tensions')!.build!.items).toMatchObject([{ kind: 'tension', evidence: { path: 'Projects/ADR-2.md', lines: null } }]);
    expect(built.find((s) => s.section === 'current-facts')!.build!.text).toContain('project tidewater: status = "planning"');
    expect(built.find((s) => s.section === 'confirmed-decisions')!.build!.text).toBe('## Confirmed decisions\nNone in this scope.');

    // Rebuilding the same records changes nothing at all: no new build, no event.
    const snapshot = await rows();
    now = new Date('2026-11-25T10:00:00Z');
    const again = await services.synthesis.rebuild(person(), scope);
    expect(again.map((s) => [s.build!.number, s.build!.fingerprint, s.build!.text])).toEqual(built.map((s) => [s.build!.number, s.build!.fingerprint, s.build!.text]));
    expect(await rows()).toBe(snapshot);
  });

  it('accepts a section only from a person, with the fingerprint they read, while its evidence holds', async () => {
    const [commitments] = await services.synthesis.read(scope, ['open-commitments']);
    const fingerprint = commitments!.build!.fingerprint;
    const snapshot = await rows();
    for (const kind of ['personal_access_token', 'oauth', 'service_principal', 'operator'] as CredentialKind[]) {
      await expect(services.synthesis.accept({ accountId: owner.accountId, credentialKind: kind }, scope, 'open-commitments', fingerprint)).rejects.toMatchObject({ code: 'forbidden' });
    }
    await expect(services.synthesis.accept(person(), { ...scope, role: 'viewer' }, 'open-commitments', fingerprint)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(services.synthesis.accept(person(), scope, 'open-commitments', `sha256:${'0'.repeat(64)}`)).rejects.toMatchObject({ code: 'conflict' });
    expect(await rows()).toBe(snapshot);

    const accepted = await services.synthesis.accept(person(), scope, 'open-commitments', fingerprint);
    expect(accepted).toMatchObject({ state: 'accepted', trusted: true, build: { accepted: { by: owner.accountId } } });
    expect(states(await services.synthesis.read(scope))).toMatchObject({ 'open-commitments': 'accepted', 'open-questions': 'draft' });
  });

  it('does not go stale when a note outside its sections changes', async () => {
    await edit('Elsewhere/Other.md', '# Other\n\n- [ ] Still not in the scope\n- [ ] Another one\n');
    await apply([{ type: 'write-note', path: 'Projects/Readme.md', content: '# Read me\n\nNo records here.\n' }]);
    const sections = await services.synthesis.read(scope);
    expect(sections.filter((s) => s.state === 'stale')).toEqual([]);
    expect(states(sections)['open-commitments']).toBe('accepted');
  });

  it('goes stale when a governed write changes a record it cites, says what changed, and a rebuild makes a new draft', async () => {
    await edit('Projects/Plan.md', NOTES['Projects/Plan.md']!.replace('- [ ] Undated follow-up', '- [x] Undated follow-up'));
    const [questions, commitments] = await services.synthesis.read(scope, ['open-commitments', 'open-questions']);
    expect(commitments).toMatchObject({ state: 'stale', trusted: false, build: { number: 1, accepted: { by: owner.accountId } } });
    const undated = commitments!.build!.items[1]!.recordId;
    expect(commitments!.staleness).toEqual({ added: [], removed: [undated], changed: [commitments!.build!.items[0]!.recordId] });
    // The question's note changed too: the revision it cites is not the note's now.
    expect(questions).toMatchObject({ state: 'stale', staleness: { added: [], removed: [], changed: [questions!.build!.items[0]!.recordId] } });
    await expect(services.synthesis.accept(person(), scope, 'open-commitments', commitments!.build!.fingerprint)).rejects.toMatchObject({ code: 'conflict' });

    const [rebuilt] = await services.synthesis.rebuild(person(), scope, ['open-commitments']);
    expect(rebuilt).toMatchObject({ state: 'draft', trusted: false, staleness: null, build: { number: 2, accepted: null } });
    expect(rebuilt!.build!.text).toBe('## Open commitments\n- Ship the pilot [owner:: Ana] 📅 2026-12-01 (owner Ana, due 2026-12-01) [Projects/Plan.md, line 3]');
    expect(rebuilt!.build!.fingerprint).toBe(rebuilt!.currentFingerprint);
  });

  it('builds a section once when two people build it at the same time', async () => {
    const made = await services.scopes.create(person(), owner.mapping.id, { name: 'Plan only', pathPrefixes: ['Projects'], tags: ['none-yet'], audience: { minimumRole: 'viewer', agents: true } });
    const fresh = await services.scopes.authorize(person(), owner.mapping.id, made.id);
    await Promise.all([services.synthesis.rebuild(person(), fresh), services.synthesis.rebuild(person(), fresh)]);
    const events = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM synthesis_section_events WHERE context_scope_id = $1', [made.id]);
    expect(events[0]!.n).toBe(6);
    expect((await services.synthesis.read(fresh)).every((s) => s.state === 'draft' && s.build?.number === 1)).toBe(true);
  });

  it('refuses a rebuild to a member whose role does not write, with nothing changed', async () => {
    const snapshot = await rows();
    await expect(services.synthesis.rebuild(person(), { ...scope, role: 'viewer' })).rejects.toMatchObject({ code: 'forbidden' });
    expect(await rows()).toBe(snapshot);
  });
});
