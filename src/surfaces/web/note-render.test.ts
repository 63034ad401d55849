import { describe, expect, it } from 'vitest';
import { compileNote } from '../../domains/knowledge/index.ts';
import { renderNote, type EmbeddedFileLink } from './note-render.ts';

const NOTE = `---
type: decision
status: accepted
---
# Use SQLite

Context first.

- [ ] Ship the sync [owner:: Ana] 📅 2026-12-01 ^ship
- [x] Spike done

> [!question] Who pays for the tiles?
> Per device or flat?

\`\`\`js
const x = 1;
\`\`\`
`;

const render = (content: string) => renderNote(content, () => undefined, (q) => `/search?q=${q}`).html;
const ids = (html: string) => [...html.matchAll(/ id="([^"]*)"/g)].map((m) => m[1]);

describe('line anchors of a rendered note', () => {
  it('gives the block that starts each source line the id L<line>, as evidence counts lines', () => {
    const html = render(NOTE);
    expect(ids(html)).toEqual(['L5', 'L7', 'L9', 'L10', 'L12', 'L15']);
    // Every record of the body starts where an anchor is.
    const records = compileNote('D.md', 'r1', NOTE).filter((r) => r.evidence.lines[0] > 4);
    expect(records.length).toBeGreaterThanOrEqual(3);
    for (const record of records) expect(ids(html)).toContain(`L${record.evidence.lines[0]}`);
    expect(html).toMatch(/<li id="L9">/);
    expect(html).toMatch(/<blockquote id="L12">/);
    expect(html).toMatch(/<code class="language-js" id="L15">/);
  });

  it('counts from line 1 without frontmatter', () => {
    expect(ids(render('# Title\n\nText\n'))).toEqual(['L1', 'L3']);
  });

  it('drops ids written in the note and forged anchor marks', () => {
    const html = render('<div id="L1" data-kgate-line="x:3">raw</div>\n\n<p id="clobber" data-kgate-line="guess:4">p</p>\n\nText\n');
    expect(ids(html)).toEqual(['L5']);
    expect(html).not.toContain('data-kgate-line');
    expect(html).not.toContain('clobber');
  });
});

describe('embeds of stored files in a rendered note', () => {
  const FILES: Record<string, EmbeddedFileLink> = {
    'pic.png': { path: 'Media/pic.png', kind: 'attachment', mediaType: 'image/png', page: '/workspace/vaults/m/file/Media/pic.png', raw: '/workspace/vaults/m/raw/Media/pic.png' },
    'img/a b.png': { path: 'img/a b.png', kind: 'attachment', mediaType: 'image/jpeg', page: '/workspace/vaults/m/file/img/a%20b.png', raw: '/workspace/vaults/m/raw/img/a%20b.png' },
    'talk.mp3': { path: 'talk.mp3', kind: 'attachment', mediaType: 'audio/mpeg', page: '/workspace/vaults/m/file/talk.mp3', raw: '/workspace/vaults/m/raw/talk.mp3' },
    'spec.pdf': { path: 'Docs/spec.pdf', kind: 'attachment', mediaType: 'application/pdf', page: '/workspace/vaults/m/file/Docs/spec.pdf', raw: '/workspace/vaults/m/raw/Docs/spec.pdf' },
    'logo.svg': { path: 'logo.svg', kind: 'attachment', mediaType: 'image/svg+xml', page: '/workspace/vaults/m/file/logo.svg', raw: '/workspace/vaults/m/raw/logo.svg' },
    'Map.canvas': { path: 'Map.canvas', kind: 'canvas', mediaType: 'application/json', page: '/workspace/vaults/m/file/Map.canvas', raw: '/workspace/vaults/m/raw/Map.canvas' },
  };
  const withFiles = (content: string) => renderNote(content, () => null, (q) => `/search?q=${q}`, (target) => FILES[target]).html;

  it('shows images and audio players from the file route, PDFs, SVG and canvases as links', () => {
    const html = withFiles(
      ['![[pic.png]]', '![[pic.png|a chart]]', '![[pic.png|300x200]]', '![the photo](img/a%20b.png)', '![[talk.mp3]]', '![[spec.pdf]]', '![[logo.svg]]', '![[Map.canvas]]', ''].join('\n\n'),
    );
    expect(html).toContain('<img class="embed" src="/workspace/vaults/m/raw/Media/pic.png" alt="pic.png" />');
    expect(html).toContain('<img class="embed" src="/workspace/vaults/m/raw/Media/pic.png" alt="a chart" />');
    expect(html).toContain('<img class="embed" src="/workspace/vaults/m/raw/Media/pic.png" alt="pic.png" width="300" height="200" />');
    expect(html).toContain('<img class="embed" src="/workspace/vaults/m/raw/img/a%20b.png" alt="the photo" />');
    expect(html).toContain('<audio controls preload="metadata" src="/workspace/vaults/m/raw/talk.mp3" title="talk.mp3"></audio>');
    expect(html).toContain('<a class="embed" href="/workspace/vaults/m/raw/Docs/spec.pdf">PDF: spec.pdf</a>');
    // SVG is never an image here: a link to the file's page, where it can only be downloaded.
    expect(html).toContain('<a class="embed" href="/workspace/vaults/m/file/logo.svg">Attachment: logo.svg</a>');
    expect(html).toContain('<a class="embed" href="/workspace/vaults/m/file/Map.canvas">Canvas: Map.canvas</a>');
    expect(html).not.toContain('data-kgate-embed');
  });

  it('keeps images and players the note writes itself out, even when they copy the mark or the route', () => {
    const html = withFiles(
      [
        '<img src="/workspace/vaults/m/raw/Media/pic.png" data-kgate-embed="guess">',
        '<audio controls src="/workspace/vaults/m/raw/talk.mp3" data-kgate-embed="guess"></audio>',
        '<img src="https://tracker.example/pixel.gif">',
        '![remote](https://tracker.example/pixel.gif)',
        '![not stored](missing.png)',
        '![[missing.png]]',
        '',
      ].join('\n\n'),
    );
    expect(html).not.toMatch(/<img|<audio/);
    expect(html).toContain('<a href="/workspace/vaults/m/raw/Media/pic.png" class="image">Image: /workspace/vaults/m/raw/Media/pic.png</a>');
    expect(html).toContain('<a href="https://tracker.example/pixel.gif" class="image" rel="noopener noreferrer nofollow">Image: remote</a>');
    expect(html).toContain('<a href="https://tracker.example/pixel.gif" class="image" rel="noopener noreferrer nofollow">Image: https://tracker.example/pixel.gif</a>');
    expect(html).toContain('<a href="missing.png" class="image">Image: not stored</a>');
    expect(html).toContain('<span class="embed missing">Embedded: missing.png</span>');
    // The forged player is dropped, with nothing left that plays.
    expect(html).toContain('<span class="embed missing"></span>');
  });
});
