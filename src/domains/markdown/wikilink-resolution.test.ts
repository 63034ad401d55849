import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './parse.ts';
import { createLinkResolver } from './wikilink-resolution.ts';

const VAULT = [
  'Home.md',
  'Projects/Offline Sync.md',
  'Projects/Tidewater/Roadmap.md',
  'Projects/Tidewater/Tidewater.md',
  'Reference/Roadmap.md',
  'Reference/Glossary.md',
  'Archive/2024/Projects/Tidewater/Roadmap.md',
  'Archive/2024/Projects/Notes.md',
  'Assets/diagram.png',
  'Board.canvas',
  'People/Ana Ruiz.md',
  'Café ☕/Menü 🍜.md',
];

const resolver = createLinkResolver(VAULT);
const resolve = (target: string, source = 'Home.md') => resolver.resolve(target, source);

describe('createLinkResolver: resolve', () => {
  it('resolves an empty target to the source note itself', () => {
    expect(resolve('', 'Projects/Offline Sync.md')).toBe('Projects/Offline Sync.md');
    expect(resolve('  ', 'Reference/Glossary.md')).toBe('Reference/Glossary.md');
  });

  it('matches names with or without .md, case-insensitively', () => {
    for (const target of ['Offline Sync', 'offline sync', 'Offline Sync.md', 'OFFLINE SYNC.MD', ' Offline Sync ']) {
      expect(resolve(target), target).toBe('Projects/Offline Sync.md');
    }
    expect(resolve('home')).toBe('Home.md');
  });

  it('resolves other files by their full name, extension included', () => {
    expect(resolve('diagram.png')).toBe('Assets/diagram.png');
    expect(resolve('Assets/diagram.png')).toBe('Assets/diagram.png');
    expect(resolve('board.canvas')).toBe('Board.canvas');
    expect(resolve('diagram')).toBeUndefined();
    expect(resolve('Board')).toBeUndefined();
  });

  it('gives undefined for missing notes', () => {
    expect(resolve('Nowhere')).toBeUndefined();
    expect(resolve('Projects/Nowhere')).toBeUndefined();
    expect(resolve('Glossary/Reference')).toBeUndefined();
  });

  it('prefers, among notes of the same name, the one in the source folder, then the shortest path', () => {
    expect(resolve('Roadmap', 'Projects/Tidewater/Tidewater.md')).toBe('Projects/Tidewater/Roadmap.md');
    expect(resolve('Roadmap', 'Archive/2024/Projects/Tidewater/Roadmap.md')).toBe('Archive/2024/Projects/Tidewater/Roadmap.md');
    expect(resolve('Roadmap', 'Reference/Glossary.md')).toBe('Reference/Roadmap.md');
    expect(resolve('Roadmap', 'Home.md')).toBe('Reference/Roadmap.md'); // 2 segments beat 3
    expect(resolve('Roadmap', 'People/Ana Ruiz.md')).toBe('Reference/Roadmap.md');
  });

  it('breaks ties by fewest characters, then the smallest path, whatever the input order', () => {
    const paths = ['Bb/Plan.md', 'Aa/Plan.md', 'Zzz/Plan.md', 'A/B/Plan.md'];
    for (const order of [paths, [...paths].reverse(), [paths[2]!, paths[0]!, paths[3]!, paths[1]!]]) {
      expect(createLinkResolver(order).resolve('Plan', 'Root.md')).toBe('Aa/Plan.md');
    }
    expect(createLinkResolver([...paths, 'C/Plan.md']).resolve('plan', 'Root.md')).toBe('C/Plan.md');
  });

  it('matches a folder-qualified target exactly first, else as a suffix of whole segments', () => {
    expect(resolve('Reference/Roadmap')).toBe('Reference/Roadmap.md');
    expect(resolve('Tidewater/Roadmap')).toBe('Projects/Tidewater/Roadmap.md');
    expect(resolve('Tidewater/Roadmap', 'Archive/2024/Projects/Notes.md')).toBe('Archive/2024/Projects/Tidewater/Roadmap.md');
    expect(resolve('2024/Projects/Tidewater/Roadmap')).toBe('Archive/2024/Projects/Tidewater/Roadmap.md');
    expect(resolve('jects/Tidewater/Roadmap')).toBeUndefined();
    expect(resolve('projects/TIDEWATER/roadmap.md')).toBe('Projects/Tidewater/Roadmap.md');
  });

  it('resolves ./ and ../ from the source folder, and only there', () => {
    const source = 'Projects/Tidewater/Tidewater.md';
    expect(resolve('./Roadmap', source)).toBe('Projects/Tidewater/Roadmap.md');
    expect(resolve('../Offline Sync.md', source)).toBe('Projects/Offline Sync.md');
    expect(resolve('../../Reference/./Glossary', source)).toBe('Reference/Glossary.md');
    expect(resolve('../../../Home', source)).toBeUndefined();
    expect(resolve('./Glossary', source)).toBeUndefined();
    expect(resolve('./Home', 'Home.md')).toBe('Home.md');
  });

  it('anchors a target starting with / at the vault root', () => {
    expect(resolve('/Reference/Roadmap')).toBe('Reference/Roadmap.md');
    expect(resolve('/Roadmap')).toBeUndefined();
  });

  it('matches Unicode names in either normalization form', () => {
    expect(resolve('Menü 🍜')).toBe('Café ☕/Menü 🍜.md');
    expect(resolve('Cafe\u0301 ☕/Menu\u0308 🍜')).toBe('Café ☕/Menü 🍜.md');
    expect(createLinkResolver(['Cafe\u0301.md']).resolve('Café', 'x.md')).toBe('Café.md');
  });

  it('keeps one of two paths that differ only in case, the same one every time', () => {
    expect(createLinkResolver(['b.md', 'B.md']).resolve('b', 'x.md')).toBe('B.md');
    expect(createLinkResolver(['B.md', 'b.md']).resolve('b', 'x.md')).toBe('B.md');
  });

  it('resolves parsed links: WikiLinks, embeds and internal Markdown links, not external ones', () => {
    const model = parseMarkdown('[[Roadmap#Q1]] ![[diagram.png]] [g](../Reference/Glossary.md) [s](Projects/Offline%20Sync.md) [w](https://x.test) [[Missing]]');
    const source = 'Projects/Tidewater/Tidewater.md';
    expect([...model.wikiLinks, ...model.links].map((l) => resolver.resolveLink(l, source))).toEqual([
      'Projects/Tidewater/Roadmap.md',
      'Assets/diagram.png',
      undefined,
      undefined,
      'Projects/Offline Sync.md',
      undefined,
    ]);
    expect(resolver.resolveLink(model.links[0]!, 'Projects/Offline Sync.md')).toBe('Reference/Glossary.md');
  });
});

describe('createLinkResolver: shortestLinkText', () => {
  it('is the bare name when unique, else the fewest unique trailing segments, else the full path', () => {
    expect(resolver.shortestLinkText('Projects/Offline Sync.md')).toBe('Offline Sync');
    expect(resolver.shortestLinkText('Reference/Roadmap.md')).toBe('Reference/Roadmap');
    expect(resolver.shortestLinkText('Archive/2024/Projects/Tidewater/Roadmap.md')).toBe('2024/Projects/Tidewater/Roadmap');
    expect(resolver.shortestLinkText('Projects/Tidewater/Roadmap.md')).toBe('Projects/Tidewater/Roadmap');
    expect(resolver.shortestLinkText('Assets/diagram.png')).toBe('diagram.png');
    expect(resolver.shortestLinkText('home.md')).toBe('Home');
  });

  it('keeps .md when the full path without it names another file', () => {
    const vault = createLinkResolver(['Notes/x', 'Other/x.md', 'x']);
    expect(vault.shortestLinkText('Other/x.md')).toBe('Other/x');
    expect(createLinkResolver(['a/b', 'a/b.md']).shortestLinkText('a/b.md')).toBe('a/b.md');
  });

  it('gives text that resolves back to the path from every note', () => {
    for (const path of VAULT) {
      const text = resolver.shortestLinkText(path);
      for (const source of VAULT) expect(resolver.resolve(text, source), `${text} from ${source}`).toBe(path);
    }
  });
});
