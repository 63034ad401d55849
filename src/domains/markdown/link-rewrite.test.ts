import { describe, expect, it } from 'vitest';
import { retargetLinks, rewriteWikiLinks } from './link-rewrite.ts';
import type { NoteLink } from './markdown-model.ts';
import { parseMarkdown } from './parse.ts';
import { createLinkResolver } from './wikilink-resolution.ts';

const rewrite = (content: string, replace: (link: NoteLink) => string | undefined) => rewriteWikiLinks(content, parseMarkdown(content), replace);
const renameTarget = (from: string, to: string) => (link: NoteLink) => {
  const target = link.kind === 'wikilink' ? link.target : link.path;
  return target === from ? to : undefined;
};

const ODD_FRONTMATTER = '\uFEFF---\r\n# a comment [[Roadmap]]\r\ntitle:   "Roadmap"   # trailing\r\nrelated: [ "[[Roadmap]]" ,x]\r\nlist:\r\n-   a\r\n\r\n---\r\n';

describe('rewriteWikiLinks', () => {
  it('changes only the target of WikiLinks and embeds, keeping heading, block, alias and !', () => {
    const content = '[[Roadmap]] [[Roadmap#Q1|the plan]] ![[Roadmap#^b1]] [[ Roadmap | spaced ]] [[Other]] [[#Roadmap]]\n| [[Roadmap\\|t]] |\n';
    const result = rewrite(content, renameTarget('Roadmap', 'Archive/Plan'));
    expect(result.content).toBe(
      '[[Archive/Plan]] [[Archive/Plan#Q1|the plan]] ![[Archive/Plan#^b1]] [[ Archive/Plan | spaced ]] [[Other]] [[#Roadmap]]\n| [[Archive/Plan\\|t]] |\n',
    );
    expect(result).toMatchObject({ changed: 5, skipped: 0 });
  });

  it('can give a same-note link a target', () => {
    expect(rewrite('[[#Heading]] [[#^b]]', () => 'Note').content).toBe('[[Note#Heading]] [[Note#^b]]');
  });

  it('leaves links in code, comments and math alone', () => {
    const content = '`[[Roadmap]]`\n```\n[[Roadmap]]\n```\n%% [[Roadmap]] %%\n<!-- [Roadmap](Roadmap.md) -->\n$$[[Roadmap]]$$\n[[Roadmap]]\n';
    const result = rewrite(content, () => 'Plan');
    expect(result.content).toBe(content.replace(/\[\[Roadmap\]\]\n$/, '[[Plan]]\n'));
    expect(result.changed).toBe(1);
  });

  it('keeps the frontmatter and every other byte identical: BOM, CRLF, comments, odd YAML', () => {
    const body = '# Roadmap\r\n\r\nSee [[Roadmap|plan]] and [r](Roadmap.md).\r\n%% [[Roadmap]] %%\r\n';
    const content = ODD_FRONTMATTER + body;
    const result = rewrite(content, renameTarget('Roadmap', 'Plan'));
    expect(result.changed).toBe(1);
    expect(result.content.startsWith(ODD_FRONTMATTER)).toBe(true);
    expect(result.content).toBe(`${ODD_FRONTMATTER}# Roadmap\r\n\r\nSee [[Plan|plan]] and [r](Roadmap.md).\r\n%% [[Roadmap]] %%\r\n`);
    expect(rewrite(content, () => undefined).content).toBe(content);
  });

  it('rewrites internal Markdown destinations in their own style', () => {
    const content = [
      '[a](Projects/Offline%20Sync.md#Client%20config "title")',
      '[b](<Projects/Offline Sync.md>)',
      '[c](Projects/Offline%20Sync.md)',
      '[d](Caf%C3%A9.md) [e](Café.md) ![f](Café.md)',
      '[x](https://example.test/Projects/Offline%20Sync.md)',
    ].join('\n');
    const seen: string[] = [];
    const result = rewrite(content, (link) => {
      seen.push(link.raw);
      if (link.kind !== 'markdown') return undefined;
      if (link.path === 'Projects/Offline Sync.md') return link.text === 'c' ? 'Archive/100% (old).md' : 'Archive/Offline Sync.md';
      return link.path === 'Café.md' ? 'Menü 🍜.md' : undefined;
    });
    expect(result.content).toBe(
      [
        '[a](Archive/Offline%20Sync.md#Client%20config "title")',
        '[b](<Archive/Offline Sync.md>)',
        '[c](Archive/100%25%20%28old%29.md)',
        '[d](Men%C3%BC%20%F0%9F%8D%9C.md) [e](Menü%20🍜.md) ![f](Menü%20🍜.md)',
        '[x](https://example.test/Projects/Offline%20Sync.md)',
      ].join('\n'),
    );
    expect(seen).not.toContain('[x](https://example.test/Projects/Offline%20Sync.md)');
    expect(parseMarkdown(result.content).links.map((l) => l.path)).toEqual([
      'Archive/Offline Sync.md',
      'Archive/Offline Sync.md',
      'Archive/100% (old).md',
      'Menü 🍜.md',
      'Menü 🍜.md',
      'Menü 🍜.md',
      undefined,
    ]);
  });

  it('refuses a model parsed from other content', () => {
    const model = parseMarkdown('x [[a]]');
    expect(() => rewriteWikiLinks('[[a]] x', model, () => 'b')).toThrow(/not parsed from this content/);
  });

  it('skips targets the link syntax cannot hold, and counts them', () => {
    const targets: Record<string, string> = { a: 'x|y', b: 'x#y', c: '', 'd.md': 'e>f.md' };
    const result = rewrite('[[a]] [[b]] [[c]] [x](<d.md>)', (link) => targets[link.kind === 'wikilink' ? link.target : link.path!]);
    expect(result).toEqual({ content: '[[a]] [[b]] [[c]] [x](<d.md>)', changed: 0, skipped: 4 });
  });
});

/** Resolvers for a vault before and after moving `from` to `to`. */
function move(paths: string[], from: string, to: string, sourcePath: string) {
  return { sourcePath, from, to, before: createLinkResolver(paths), after: createLinkResolver(paths.map((p) => (p === from ? to : p))) };
}
const retarget = (content: string, m: ReturnType<typeof move>) => retargetLinks(content, parseMarkdown(content), m);

describe('retargetLinks', () => {
  const vault = ['Home.md', 'Projects/Roadmap.md', 'Projects/Tidewater/Tidewater.md', 'Projects/Tidewater/Roadmap.md', 'Reference/Glossary.md', 'Café ☕/Menü 🍜.md'];

  it('points links at the renamed note in the form they were written', () => {
    const content =
      '[[Projects/Roadmap]] [[projects/roadmap.md#Q1|plan]] [[/Projects/Roadmap]] [r](Projects/Roadmap.md) [[Missing]] [[Glossary]] [[#Local]]\n';
    const result = retarget(content, move(vault, 'Projects/Roadmap.md', 'Projects/Plan.md', 'Home.md'));
    expect(result.content).toBe('[[Projects/Plan]] [[Projects/Plan.md#Q1|plan]] [[/Projects/Plan]] [r](Projects/Plan.md) [[Missing]] [[Glossary]] [[#Local]]\n');
    expect(result.changed).toBe(4);
  });

  it('writes the shortest unique name for bare links, qualified when the new name is taken', () => {
    const m = move(vault, 'Projects/Roadmap.md', 'Archive/Glossary.md', 'Home.md');
    // [[Roadmap]] from Home meant Projects/Roadmap.md (2 segments beat 3); Glossary is now ambiguous.
    const result = retarget('[[Roadmap|plan]] [[Glossary]]\n', m);
    expect(result.content).toBe('[[Archive/Glossary|plan]] [[Reference/Glossary]]\n');
    const after = parseMarkdown(result.content).wikiLinks.map((l) => m.after.resolveLink(l, 'Home.md'));
    expect(after).toEqual(['Archive/Glossary.md', 'Reference/Glossary.md']);
  });

  it('keeps relative links relative, from the folder of the note', () => {
    const m = move(vault, 'Projects/Roadmap.md', 'Archive/Roadmap.md', 'Projects/Tidewater/Tidewater.md');
    expect(retarget('[[../Roadmap]] [up](../Roadmap.md)', m).content).toBe('[[../../Archive/Roadmap]] [up](../../Archive/Roadmap.md)');
  });

  it('recomputes the links of the note that moved itself', () => {
    const m = move(vault, 'Projects/Tidewater/Tidewater.md', 'Tidewater.md', 'Projects/Tidewater/Tidewater.md');
    const content = '[[./Roadmap]] [[Roadmap]] [[Tidewater#Intro]] [[#Intro]] [[Glossary]]';
    const result = retarget(content, m);
    expect(result.content).toBe('[[./Projects/Tidewater/Roadmap]] [[Tidewater/Roadmap]] [[Tidewater#Intro]] [[#Intro]] [[Glossary]]');
    expect(parseMarkdown(result.content).wikiLinks.map((l) => m.after.resolveLink(l, 'Tidewater.md'))).toEqual([
      'Projects/Tidewater/Roadmap.md',
      'Projects/Tidewater/Roadmap.md',
      'Tidewater.md',
      'Tidewater.md',
      'Reference/Glossary.md',
    ]);
  });

  it('handles emoji and accented names, in WikiLinks and encoded Markdown links', () => {
    const m = move(vault, 'Café ☕/Menü 🍜.md', 'Café ☕/Menü 🍣.md', 'Home.md');
    const content = '[[Menü 🍜]] [m](Caf%C3%A9%20%E2%98%95/Men%C3%BC%20%F0%9F%8D%9C.md)';
    expect(retarget(content, m).content).toBe('[[Menü 🍣]] [m](Caf%C3%A9%20%E2%98%95/Men%C3%BC%20%F0%9F%8D%A3.md)');
  });

  it('keeps CRLF, BOM and frontmatter bytes', () => {
    const content = `${ODD_FRONTMATTER}- [ ] see [[Roadmap]]\r\n`;
    const result = retarget(content, move(vault, 'Projects/Roadmap.md', 'Projects/Plan.md', 'Home.md'));
    expect(result.content).toBe(`${ODD_FRONTMATTER}- [ ] see [[Plan]]\r\n`);
  });

  it('changes nothing when no link is affected', () => {
    const content = '[[Glossary]] [[Nowhere]] [x](https://x.test)';
    expect(retarget(content, move(vault, 'Projects/Roadmap.md', 'Projects/Plan.md', 'Home.md'))).toEqual({ content, changed: 0, skipped: 0 });
  });
});
