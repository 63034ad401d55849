import { describe, expect, it } from 'vitest';
import { compileNote } from '../../domains/knowledge/index.ts';
import { renderNote } from './note-render.ts';

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
