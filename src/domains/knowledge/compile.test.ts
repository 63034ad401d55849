import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileNote } from './compile.ts';
import { knowledgeChanges } from './changes.ts';
import type { CommitmentRecord, DecisionRecord, KnowledgeRecord } from './records.ts';

const example = (path: string) => readFileSync(new URL(`../../../examples/vault/${path}`, import.meta.url), 'utf8');
const ofKind = <K extends KnowledgeRecord['kind']>(records: KnowledgeRecord[], kind: K) => records.filter((r): r is Extract<KnowledgeRecord, { kind: K }> => r.kind === kind);

describe('compiling a note', () => {
  it('reads a decision note of the example vault: status, dates, subject, what it supersedes, and its evidence', () => {
    const path = 'Decisions/ADR-002 SQLite with Custom Sync.md';
    const records = compileNote(path, 'sha256:r1', example(path));
    const [decision] = ofKind(records, 'decision');
    expect(decision).toMatchObject({
      title: 'ADR-002: SQLite on device with a custom change-log sync',
      statusInNote: 'accepted',
      decided: '2026-11-03',
      subject: 'Offline storage and sync engine for Tidewater',
      supersedes: ['ADR-001 CouchDB Replication'],
      evidence: { path, revision: 'sha256:r1', lines: [1, 18] }, // the frontmatter, delimiters included
    } satisfies Partial<DecisionRecord>);
    expect(ofKind(records, 'relation')).toEqual([expect.objectContaining({ type: 'supersedes', target: 'ADR-001 CouchDB Replication' })]);
  });

  it('reads commitments with owners and due dates in both notations, and open questions from callouts', () => {
    const roadmap = compileNote('Projects/Tidewater/Roadmap.md', 'sha256:r', example('Projects/Tidewater/Roadmap.md'));
    const tasks = ofKind(roadmap, 'commitment');
    expect(tasks.find((t) => t.text.startsWith('Work order list'))).toMatchObject({ owner: 'Jonas Berg', due: '2026-12-05', closed: false } satisfies Partial<CommitmentRecord>);
    expect(tasks.find((t) => t.text.startsWith('Photo capture'))).toMatchObject({ owner: null, due: '2026-12-10' });
    expect(tasks.find((t) => t.text.startsWith('Pick offline storage'))).toMatchObject({ closed: true });
    const questions = ofKind(compileNote('Open Questions.md', 'sha256:q', example('Open Questions.md')), 'question');
    expect(questions.map((q) => q.text)).toContain('Do dispatchers need write access during the pilot?');
  });

  it('reads an entity note as assertions, one per property, valid from the date the note gives', () => {
    const content = '---\ntype: customer\nid: harbor-utilities\nvalid_from: 2026-10-01\ntechnicians: 40\ncontact: "[[Priya Natarajan]]"\ntags: [customer]\n---\n# Harbor Utilities\n';
    const assertions = ofKind(compileNote('Customers/Harbor.md', 'sha256:e', content), 'assertion');
    expect(assertions.map((a) => [a.entityType, a.entityId, a.property, a.value, a.validFrom])).toEqual([
      ['customer', 'harbor-utilities', 'contact', '"[[Priya Natarajan]]"', '2026-10-01'],
      ['customer', 'harbor-utilities', 'technicians', '40', '2026-10-01'],
    ]);
  });

  it('is deterministic, keeps ids when lines move, and tells decisions in callouts and block ids apart', () => {
    const content = '# Notes\n\n> [!decision] Use SQLite on device\n> Agreed on Monday.\n\n- [ ] Ship it 📅 2026-12-01 ^ship\n';
    const first = compileNote('N.md', 'r1', content);
    expect(compileNote('N.md', 'r1', content)).toEqual(first);
    const moved = compileNote('N.md', 'r2', `Intro line.\n\n${content}`);
    expect(moved.map((r) => r.id)).toEqual(first.map((r) => r.id));
    expect(ofKind(first, 'decision')[0]).toMatchObject({ title: 'Use SQLite on device', statusInNote: 'proposed', evidence: { lines: [3, 4] } });
    expect(ofKind(first, 'commitment')[0]).toMatchObject({ due: '2026-12-01', evidence: { blockId: 'ship', lines: [6, 6] } });
  });

  it('compiles nothing from invalid frontmatter, and still reads the body', () => {
    const records = compileNote('Bad.md', 'r', '---\ntype: decision\nstatus: [unclosed\n---\n- [ ] still a task\n');
    expect(records.map((r) => r.kind)).toEqual(['commitment']);
  });
});

describe('knowledge changes', () => {
  const at = (revision: string, content: string) => ({ revision, records: compileNote('D.md', revision, content) });
  const decision = (status: string, extra = '') => `---\ntype: decision\nstatus: ${status}\n---\n# D\n${extra}`;

  it('are none when the content compiles to the same records, even with lines moved', () => {
    expect(knowledgeChanges('D.md', at('r1', decision('accepted', '- [ ] a\n')), at('r2', decision('accepted', '\n\n- [ ] a\n')))).toEqual([]);
  });

  it('name what a change implies: a status changed, a commitment closed and reopened, an assertion superseded', () => {
    expect(knowledgeChanges('D.md', at('r1', decision('proposed')), at('r2', decision('accepted')))).toEqual([
      expect.objectContaining({ type: 'decision.status_changed', before: 'proposed', after: 'accepted', beforeRevision: 'r1', afterRevision: 'r2' }),
    ]);
    const open = at('r1', '- [ ] Ship ^s\n');
    const done = at('r2', '- [x] Ship ^s\n');
    expect(knowledgeChanges('D.md', open, done).map((c) => c.type)).toEqual(['commitment.closed']);
    expect(knowledgeChanges('D.md', done, open).map((c) => c.type)).toEqual(['commitment.reopened']);
    const entity = (n: number) => at(`r${n}`, `---\ntype: customer\nid: h\ntechnicians: ${n}\n---\n`);
    expect(knowledgeChanges('D.md', entity(40), entity(45))).toEqual([expect.objectContaining({ type: 'assertion.superseded', before: '40', after: '45' })]);
  });

  it('add every record of a new note and remove every record of a deleted one', () => {
    const created = knowledgeChanges('D.md', null, at('r1', decision('accepted', '- [ ] a\n')));
    expect(created.map((c) => [c.type, c.recordKind]).sort()).toEqual([
      ['record.added', 'commitment'],
      ['record.added', 'decision'],
    ]);
    expect(knowledgeChanges('D.md', at('r1', decision('accepted')), null).map((c) => c.type)).toEqual(['record.removed']);
  });
});
