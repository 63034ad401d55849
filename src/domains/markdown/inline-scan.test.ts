import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './parse.ts';

// The inline scanner is driven by parseMarkdown; these tests read single lines through it.
const wiki = (content: string) => parseMarkdown(content).wikiLinks;
const tags = (content: string) => parseMarkdown(content).tags.map((t) => t.name);
const links = (content: string) => parseMarkdown(content).links;

describe('WikiLinks and embeds', () => {
  it('splits target, heading, block id and alias', () => {
    const content = 'See [[Projects/Offline Sync#Approach|the approach]], [[ADR-002#^conflict-rule]], [[#Tasks]], [[#^b1]] and ![[diagram.png|300]].';
    expect(wiki(content).map(({ target, heading, blockId, alias, embed }) => ({ target, heading, blockId, alias, embed }))).toEqual([
      { target: 'Projects/Offline Sync', heading: 'Approach', blockId: undefined, alias: 'the approach', embed: false },
      { target: 'ADR-002', heading: undefined, blockId: 'conflict-rule', alias: undefined, embed: false },
      { target: '', heading: 'Tasks', blockId: undefined, alias: undefined, embed: false },
      { target: '', heading: undefined, blockId: 'b1', alias: undefined, embed: false },
      { target: 'diagram.png', heading: undefined, blockId: undefined, alias: '300', embed: true },
    ]);
  });

  it('gives offsets of the whole link and of its target', () => {
    const content = 'x ![[ Folder/Note # Head | Alias ]] y [[#Same]]';
    const [embed, same] = wiki(content);
    expect(content.slice(embed!.start, embed!.end)).toBe('![[ Folder/Note # Head | Alias ]]');
    expect(embed!.raw).toBe('![[ Folder/Note # Head | Alias ]]');
    expect(content.slice(embed!.targetStart, embed!.targetEnd)).toBe('Folder/Note');
    expect(embed).toMatchObject({ target: 'Folder/Note', heading: 'Head', alias: 'Alias' });
    expect(same!.targetStart).toBe(same!.targetEnd);
    expect(content.slice(same!.start + 2, same!.targetStart)).toBe('');
  });

  it('takes an escaped pipe in a table as the alias separator', () => {
    const content = '| [[People/Ana Ruiz\\|Ana]] | [[Plan#Goals\\|goals]] |';
    const [ana, plan] = wiki(content);
    expect(ana).toMatchObject({ target: 'People/Ana Ruiz', alias: 'Ana' });
    expect(content.slice(ana!.targetStart, ana!.targetEnd)).toBe('People/Ana Ruiz');
    expect(plan).toMatchObject({ target: 'Plan', heading: 'Goals', alias: 'goals' });
  });

  it('keeps emoji and non-Latin names as written', () => {
    expect(wiki('[[Café ☕/Menü 🍜|食べ物]]')).toMatchObject([{ target: 'Café ☕/Menü 🍜', alias: '食べ物' }]);
  });

  it('reads the innermost link of nested brackets and nothing from broken ones', () => {
    expect(wiki('[[a [[b]]').map((l) => l.target)).toEqual(['b']);
    expect(wiki('[[[c]]').map((l) => l.raw)).toEqual(['[[c]]']);
    expect(wiki('[[unclosed\n]] [[]] [[ ]] [[|x]] \\[[escaped]]')).toEqual([]);
  });

  it('ignores links in code spans, code blocks, comments and math', () => {
    const content = ['`[[code]]` ``a ` [[double]]`` [[real1]]', '%%[[comment]]%% <!-- [[html]] --> $$[[math]]$$', '```', '[[fenced]]', '```', '[[real2]]'].join('\n');
    expect(wiki(content).map((l) => l.target)).toEqual(['real1', 'real2']);
    expect(wiki('a ` lone backtick [[counts]]').map((l) => l.target)).toEqual(['counts']);
  });

  it('reads every link of a long line full of brackets that close nothing', () => {
    const line = Array.from({ length: 2000 }, (_, i) => `see [${i}] and [[Note ${i}]] or [x] ![y] (z)`).join(' ');
    expect(wiki(line)).toHaveLength(2000);
    expect(wiki(line)[1999]!.target).toBe('Note 1999');
  });

  it('stops looking for closing brackets on a pathological line, and still reads the lines after it', () => {
    const model = parseMarkdown(`[[x]] ${'[['.repeat(100_000)}
[[after]] #tag`);
    expect(model.wikiLinks.map((l) => l.target)).toEqual(['x', 'after']);
    expect(model.tags.map((t) => t.name)).toEqual(['tag']);
  });

  it('takes a lone $$ as text', () => {
    expect(wiki('costs $$ and [[Link]]').map((l) => l.target)).toEqual(['Link']);
  });

  it('reduces links to their alias or target in the search text', () => {
    expect(parseMarkdown('Ask [[People/Ana|Ana]] about [[Plan#Goals]], ![[map.png|300x200]] and [[#Local]] [[#^b1]].').searchText).toBe(
      'Ask Ana about Plan Goals, map.png and Local .',
    );
  });
});

describe('Markdown links and images', () => {
  it('decodes internal paths and splits the fragment', () => {
    const content = '[Sync](Projects/Offline%20Sync.md#Client%20config) [b](<Reference/Glossary.md#^term> "Terms") [top](#Tasks)';
    expect(links(content).map(({ text, href, path, heading, blockId, title, angle, external }) => ({ text, href, path, heading, blockId, title, angle, external }))).toEqual([
      { text: 'Sync', href: 'Projects/Offline%20Sync.md#Client%20config', path: 'Projects/Offline Sync.md', heading: 'Client config', blockId: undefined, title: undefined, angle: false, external: false },
      { text: 'b', href: 'Reference/Glossary.md#^term', path: 'Reference/Glossary.md', heading: undefined, blockId: 'term', title: 'Terms', angle: true, external: false },
      { text: 'top', href: '#Tasks', path: '', heading: 'Tasks', blockId: undefined, title: undefined, angle: false, external: false },
    ]);
  });

  it('marks destinations with a URL scheme as external and leaves them undecoded', () => {
    const content = "[w](https://en.wikipedia.org/wiki/Set_(mathematics)) [m](mailto:a@b.test 'mail') [o](obsidian://open?vault=x) [p](//cdn.test/x)";
    expect(links(content).map((l) => [l.href, l.external, l.path, l.title])).toEqual([
      ['https://en.wikipedia.org/wiki/Set_(mathematics)', true, undefined, undefined],
      ['mailto:a@b.test', true, undefined, 'mail'],
      ['obsidian://open?vault=x', true, undefined, undefined],
      ['//cdn.test/x', true, undefined, undefined],
    ]);
  });

  it('reads images as embeds, with offsets of the destination', () => {
    const content = 'Look: ![A map](Attachments/map%20v2.png (Map title)) end';
    const [image] = links(content);
    expect(image).toMatchObject({ embed: true, text: 'A map', path: 'Attachments/map v2.png', title: 'Map title' });
    expect(content.slice(image!.start, image!.end)).toBe('![A map](Attachments/map%20v2.png (Map title))');
    expect(content.slice(image!.hrefStart, image!.hrefEnd)).toBe('Attachments/map%20v2.png');
  });

  it('rejects what is not an inline link', () => {
    for (const content of ['[a] (b)', '\\[a](b)', '[a](b c)', '[a](<b)', '[a](b "t)', '[a](b', '[a][ref]', '`[a](b)`']) {
      expect(links(content)).toEqual([]);
    }
  });

  it('keeps the link text, not the URL, in the search text, and reads no tags in links', () => {
    const model = parseMarkdown('Read [the #guide](https://x.test/#intro) and ![diagram #1](d.png).');
    expect(model.searchText).toBe('Read the #guide and diagram #1.');
    expect(model.tags).toEqual([]);
  });
});

describe('tags', () => {
  it('reads #tag and #nested/tag with offsets and a lowercased key', () => {
    const content = 'Tagged #Project/Alpha and #todo.';
    const model = parseMarkdown(content);
    expect(model.tags).toEqual([
      { line: 0, start: 7, end: 21, name: 'Project/Alpha', key: 'project/alpha' },
      { line: 0, start: 26, end: 31, name: 'todo', key: 'todo' },
    ]);
  });

  it('follows the Obsidian character rules', () => {
    expect(tags('#123 #1a #2024/05 #y2024 #a-b_c #café #日本 #x/ #/x #tag, (#paren) #end!')).toEqual(['1a', 'y2024', 'a-b_c', 'café', '日本', 'x', 'tag', 'paren', 'end']);
  });

  it('needs no word character, #, & or / before the #', () => {
    expect(tags('C# a#b &#123; ##double x/#y \\#escaped é#z')).toEqual([]);
  });

  it('reads no tags in URLs, links, code, comments, HTML attributes or heading markers', () => {
    const content = [
      '## Heading #in-heading',
      'https://example.com/page#section and https://x.test/#/route and https://x.test/w/(#frag)',
      '[[Note#Heading]] `#code` %%#comment%% <a href="#top">top</a>',
    ].join('\n');
    expect(tags(content)).toEqual(['in-heading']);
  });
});

describe('block ids', () => {
  it('reads ^id at the end of a line after whitespace, or alone on a line', () => {
    const content = 'A paragraph ^para-1\n\n| a | b |\n\n^table-id\nnot^glued\n^mid line\n`code ^x`\n';
    const model = parseMarkdown(content);
    expect(model.blockIds.map((b) => [b.id, b.line, content.slice(b.start, b.end)])).toEqual([
      ['para-1', 0, '^para-1'],
      ['table-id', 4, '^table-id'],
    ]);
    expect(model.searchText).not.toContain('para-1');
  });
});
