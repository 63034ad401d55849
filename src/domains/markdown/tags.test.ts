import { describe, expect, it } from 'vitest';
import { frontmatterTags, noteTags, tagName } from './tags.ts';

describe('tagName', () => {
  it('accepts names with or without #, keeping the spelling and adding a lowercased key', () => {
    expect(tagName('#Work/Planning')).toEqual({ name: 'Work/Planning', key: 'work/planning' });
    expect(tagName('Ökologie')).toEqual({ name: 'Ökologie', key: 'ökologie' });
  });

  it('refuses names Obsidian would not take as tags', () => {
    for (const text of ['', '#', '2024', '#12/34', '/lead', 'with space', 'dot.ted', 'emoji🙂', 'trailing/']) {
      expect(tagName(text), text).toBeUndefined();
    }
  });
});

describe('frontmatterTags', () => {
  it('reads a list, one item per tag', () => {
    expect(frontmatterTags({ tags: ['project', '#Project/Tidewater', 'two words', 42, null, 'y2024'] })).toEqual([
      { name: 'project', key: 'project' },
      { name: 'Project/Tidewater', key: 'project/tidewater' },
      { name: 'y2024', key: 'y2024' },
    ]);
  });

  it('reads a string separated by commas or spaces, and the tag key as well', () => {
    expect(frontmatterTags({ tags: 'a, #b  c,d', tag: 'e' }).map((t) => t.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(frontmatterTags({ tag: ['solo'] }).map((t) => t.name)).toEqual(['solo']);
  });

  it('drops repeats case-insensitively, keeping the first spelling', () => {
    expect(frontmatterTags({ tags: ['Idea', 'idea'], tag: 'IDEA' })).toEqual([{ name: 'Idea', key: 'idea' }]);
  });

  it('gives nothing for missing data or other value kinds', () => {
    expect(frontmatterTags(null)).toEqual([]);
    expect(frontmatterTags(undefined)).toEqual([]);
    expect(frontmatterTags({ tags: { a: 1 } })).toEqual([]);
    expect(frontmatterTags({ Tags: 'not-read', type: 'note' })).toEqual([]);
  });
});

describe('noteTags', () => {
  it('merges frontmatter and inline tags, frontmatter first, distinct by key', () => {
    const tags = noteTags({
      frontmatterTags: [{ name: 'Project', key: 'project' }],
      tags: [
        { line: 3, start: 0, end: 5, name: 'idea', key: 'idea' },
        { line: 4, start: 0, end: 8, name: 'project', key: 'project' },
        { line: 5, start: 0, end: 5, name: 'IDEA', key: 'idea' },
      ],
    });
    expect(tags).toEqual([
      { name: 'Project', key: 'project' },
      { name: 'idea', key: 'idea' },
    ]);
  });
});
