import { describe, expect, it } from 'vitest';
import type { Note } from '../../domains/notes/index.ts';
import { presentNote } from './presenters.ts';

const note = (content: string): Note => ({
  path: 'Projects/A.md',
  title: 'A',
  content,
  contentHash: `sha256:${content.length}`,
  revision: `sha256:${content.length}`,
  size: content.length,
  createdAt: new Date('2026-11-25T10:00:00Z'),
  updatedAt: new Date('2026-11-25T11:00:00Z'),
});

describe('presenting a note', () => {
  it('presents a frozen note (as the body cache holds it) once: the same frozen answer for every read', () => {
    const cached = Object.freeze(note('# A\n'));
    const first = presentNote(cached);
    expect(presentNote(cached)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first).toEqual({
      path: 'Projects/A.md',
      title: 'A',
      revision: 'sha256:4',
      size: 4,
      updatedAt: '2026-11-25T11:00:00.000Z',
      content: '# A\n',
      contentHash: 'sha256:4',
      createdAt: '2026-11-25T10:00:00.000Z',
    });
    // Another cached note, say the same path at a later version, has its own answer.
    const later = Object.freeze(note('# A\n\nMore.\n'));
    expect(presentNote(later)).not.toBe(first);
    expect(presentNote(later).content).toBe('# A\n\nMore.\n');
  });

  it('presents a note that is not frozen anew each time, so a change to it always shows', () => {
    const mutable = note('# A\n');
    const first = presentNote(mutable);
    mutable.content = '# B\n';
    const second = presentNote(mutable);
    expect(second).not.toBe(first);
    expect(second.content).toBe('# B\n');
    expect(Object.isFrozen(second)).toBe(false);
  });
});
