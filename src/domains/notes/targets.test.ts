import { describe, expect, it } from 'vitest';
import { generateNote, seededRandom } from '../../../test/support/generated-notes.ts';
import { applyTarget } from './targets.ts';
import type { NoteTarget } from './transaction-contract.ts';

const ok = (note: string, target: NoteTarget, content: string): string => {
  const outcome = applyTarget(note, target, content);
  if (!outcome.ok) throw new Error(`${outcome.problem.code}: ${outcome.problem.detail}`);
  return outcome.content;
};
const heading = (path: string, mode: 'replace' | 'append' = 'replace'): NoteTarget => ({ type: 'heading', heading: path, mode });

describe('a heading target', () => {
  const note = '# A\nintro\n## B\nold b\n### C\nold c\n## D\nd\n';

  it('replaces the body and subtree, keeping the heading line and what follows', () => {
    expect(ok(note, heading('A > B'), 'new b')).toBe('# A\nintro\n## B\nnew b\n## D\nd\n');
    expect(ok(note, heading('B'), 'new b\n')).toBe('# A\nintro\n## B\nnew b\n## D\nd\n');
    expect(ok(note, heading('B'), '')).toBe('# A\nintro\n## B\n## D\nd\n');
    expect(ok(note, heading('C'), 'c2')).toBe('# A\nintro\n## B\nold b\n### C\nc2\n## D\nd\n');
  });

  it('appends after the last non-blank line of its section', () => {
    expect(ok(note, heading('B', 'append'), '- added')).toBe('# A\nintro\n## B\nold b\n### C\nold c\n- added\n## D\nd\n');
    expect(ok('# A\ntext\n\n# B\n', heading('A', 'append'), 'more')).toBe('# A\ntext\nmore\n\n# B\n');
    expect(ok('# A\n\n# B\n', heading('A', 'append'), 'first')).toBe('# A\nfirst\n\n# B\n');
    expect(ok(note, heading('D', 'append'), 'tail')).toBe(`${note}tail\n`);
  });

  it('keeps the note\'s trailing newline, or its absence, and its CRLF line breaks', () => {
    expect(ok('# A\nold', heading('A'), 'new\n')).toBe('# A\nnew');
    expect(ok('# A', heading('A'), 'new')).toBe('# A\nnew');
    expect(ok('# A', heading('A', 'append'), 'new\n')).toBe('# A\nnew');
    expect(ok('# A\r\nold\r\n# B\r\n', heading('A'), 'one\ntwo')).toBe('# A\r\none\r\ntwo\r\n# B\r\n');
    expect(ok('# A\r\nold', heading('A', 'append'), 'x')).toBe('# A\r\nold\r\nx');
    expect(ok('\ufeff# A\nold\n', heading('A'), 'new')).toBe('\ufeff# A\nnew\n');
  });

  it('never takes a fenced line for a heading, and keeps the frontmatter\'s bytes', () => {
    const fenced = '---\nk:   v  # c\n---\n# A\n```\n# B\n```\n# B\nb\n';
    expect(ok(fenced, heading('B'), 'real')).toBe('---\nk:   v  # c\n---\n# A\n```\n# B\n```\n# B\nreal\n');
  });

  it('refuses a missing heading and an ambiguous one, with the candidates\' lines', () => {
    expect(applyTarget(note, heading('Z'), 'x')).toEqual({
      ok: false,
      problem: { code: 'target_not_found', detail: 'The note has no heading "Z".', details: { target: heading('Z') } },
    });
    const twice = '# A\n## X\n# B\n## X\n';
    const outcome = applyTarget(twice, heading('X'), 'x');
    expect(outcome.ok === false && [outcome.problem.code, outcome.problem.details.matches]).toEqual(['target_ambiguous', [2, 4]]);
    expect(ok(twice, heading('B > X'), 'x')).toBe('# A\n## X\n# B\n## X\nx\n');
  });
});

describe('a block target', () => {
  it('replaces the text of a list item or paragraph, keeping its marker and list marker', () => {
    const note = '- [ ] task ^t\n\nline one\nline two  ^p\nafter\n';
    expect(ok(note, { type: 'block', blockId: 't' }, '[x] done\n')).toBe('- [x] done ^t\n\nline one\nline two  ^p\nafter\n');
    expect(ok(note, { type: 'block', blockId: 'p' }, 'one line')).toBe('- [ ] task ^t\n\none line  ^p\nafter\n');
  });

  it('refuses a missing or repeated id, and content with a blank line', () => {
    const codes = (note: string, id: string, content: string) => {
      const outcome = applyTarget(note, { type: 'block', blockId: id }, content);
      return outcome.ok ? 'ok' : outcome.problem.code;
    };
    expect(codes('a ^x\n', 'y', 'z')).toBe('target_not_found');
    expect(codes('```\na ^x\n```\n', 'x', 'z')).toBe('target_not_found');
    expect(codes('a ^x\n\nb ^x\n', 'x', 'z')).toBe('target_ambiguous');
    expect(codes('a ^x\n', 'x', 'one\n\ntwo')).toBe('invalid_request');
  });
});

describe('a frontmatter target', () => {
  const fm = (key: string): NoteTarget => ({ type: 'frontmatter', key });
  const note = '---\ntitle:   "T"   # keep\nstatus: draft # old\ntags:\n  - a\n---\nbody\n';

  it('replaces one key\'s lines, leaving the other keys\' bytes', () => {
    expect(ok(note, fm('status'), 'done')).toBe('---\ntitle:   "T"   # keep\nstatus: done\ntags:\n  - a\n---\nbody\n');
    expect(ok(note, fm('tags'), '- a\n- b')).toBe('---\ntitle:   "T"   # keep\nstatus: draft # old\ntags:\n  - a\n  - b\n---\nbody\n');
    expect(ok(note, fm('status'), '')).toBe('---\ntitle:   "T"   # keep\nstatus:\ntags:\n  - a\n---\nbody\n');
  });

  it('adds a missing key at the end of the block, or a block when there is none', () => {
    expect(ok(note, fm('due'), '2026-01-01')).toBe('---\ntitle:   "T"   # keep\nstatus: draft # old\ntags:\n  - a\ndue: 2026-01-01\n---\nbody\n');
    expect(ok('---\n---\nbody', fm('a'), '1')).toBe('---\na: 1\n---\nbody');
    expect(ok('body\r\n', fm('a b'), '[1, 2]')).toBe('---\r\na b: [1, 2]\r\n---\r\nbody\r\n');
    expect(ok('body', fm('x: y'), '1')).toBe('---\n"x: y": 1\n---\nbody');
  });

  it('refuses content that is not one YAML value there, and a block that is not a mapping', () => {
    const code = (text: string, key: string, content: string) => {
      const outcome = applyTarget(text, fm(key), content);
      return outcome.ok ? 'ok' : outcome.problem.code;
    };
    expect(code(note, 'status', 'a: [')).toBe('invalid_request');
    expect(code(note, 'status', 'x\ny: 2')).toBe('invalid_request');
    expect(code('---\n[1]\n---\n', 'a', '1')).toBe('invalid_request');
  });
});

describe('targeted writes on generated notes (seeded)', () => {
  const SEEDS = 300;

  it('change only the target\'s characters, and refuse missing targets without a result', () => {
    for (let seed = 1; seed <= SEEDS; seed += 1) {
      const random = seededRandom(seed);
      const generated = generateNote(random);
      const note = generated.content;
      // A note of one line has no line break to follow: new text takes \n.
      const eol = note.includes('\n') ? generated.eol : '\n';
      for (const path of generated.headings) {
        const replaced = ok(note, heading(path), `new ${seed}\nsecond`);
        const added = `new ${seed}${eol}second`;
        const at = replaced.indexOf(added);
        expect(at, `seed ${seed} ${path}`).toBeGreaterThan(0);
        // What comes before the new text is the note's own prefix, through the heading line (and a line break after it
        // when the heading was the note's last line).
        expect(`${note}${eol}`.startsWith(replaced.slice(0, at)), `seed ${seed}`).toBe(true);
        const rest = replaced.slice(at + added.length);
        expect(note.endsWith(rest.replace(/^\r?\n/, '')) || rest === '', `seed ${seed}`).toBe(true);
        expect(replaced.endsWith('\n'), `seed ${seed}: trailing newline kept`).toBe(note.endsWith('\n'));
        const appended = ok(note, heading(path, 'append'), 'tail');
        expect(appended.length - note.length).toBeGreaterThanOrEqual('tail'.length);
        expect(appended.replace(`tail${eol}`, '').replace(`${eol}tail`, '')).toBe(note);
      }
      for (const id of generated.blockIds) {
        const changed = ok(note, { type: 'block', blockId: id }, 'swapped');
        const marker = changed.indexOf(` ^${id}`);
        expect(changed.slice(marker - 'swapped'.length, marker)).toBe('swapped');
        expect(note.endsWith(changed.slice(marker))).toBe(true);
      }
      for (const missing of [heading('No such heading'), { type: 'block', blockId: 'nosuch' } as const]) {
        const outcome = applyTarget(note, missing, 'x');
        expect(outcome.ok === false && outcome.problem.code).toBe('target_not_found');
      }
      for (const repeated of generated.repeatedHeadings) {
        const outcome = applyTarget(note, heading(repeated), 'x');
        expect(outcome.ok === false && outcome.problem.code, `seed ${seed}`).toBe('target_ambiguous');
      }
      for (const key of [...generated.keys, 'added']) {
        const changed = ok(note, { type: 'frontmatter', key }, `"v${seed}"`);
        const others = generated.keys.filter((k) => k !== key);
        for (const other of others) {
          const line = note.split(eol).find((l) => l.startsWith(`${other}:`))!;
          expect(changed.includes(line), `seed ${seed}: ${other} untouched`).toBe(true);
        }
        const bodyAt = (text: string) => text.indexOf("# Part 0");
        expect(changed.slice(bodyAt(changed))).toBe(note.slice(bodyAt(note)));
      }
    }
  });
});
