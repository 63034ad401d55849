/**
 * The workspace's canvases and attachments over real HTTP with a signed-in session: the bytes route (media types,
 * nosniff, never SVG or HTML inline, a policy that runs nothing, revalidation by hash), who may read it, the list
 * and file pages, and a note whose embeds of stored files render as images, players and links.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileHash } from '../src/domains/files/index.ts';
import { pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

/** A 1x1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const HTML = Buffer.from('<!doctype html><script>alert(1)</script>');
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
const MP3 = Buffer.from('ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000');
const CANVAS = Buffer.from(JSON.stringify({ nodes: [{ id: 'a', type: 'text', text: 'Start here', x: 0, y: 0, width: 10, height: 10 }], edges: [] }));
const NOT_A_PNG = Buffer.from('<script>alert(1)</script>');

const NOTE = ['# Gallery', '', '![[pic.png]]', '', '![a chart](../Media/pic.png)', '', '![[talk.mp3]]', '', '![[spec.pdf]]', '', '![[evil.svg]]', '', '![[Board.canvas]]', ''].join('\n');

const LINKS = [
  '# Links',
  '[[spec.pdf|the spec]] and [[Board.canvas]]',
  '[the picture](../Media/pic.png) and [gallery](Gallery.md)',
  '[missing](Nowhere.md) and [[Nowhere]]',
  '[site](https://example.com/x.pdf) and [top](#links)',
  '',
].join('\n');

describe('canvases and attachments in the workspace', () => {
  let gateway: TestGateway;
  let owner: PageBrowser;
  let stranger: PageBrowser;
  let anonymous: PageBrowser;
  let mappingId: string;
  const password = 'a long workspace password';
  const raw = (path: string) => `/workspace/vaults/${mappingId}/raw/${path.split('/').map(encodeURIComponent).join('/')}`;

  beforeAll(async () => {
    gateway = await startTestGateway();
    const email = `files-${randomBytes(4).toString('hex')}@example.test`;
    const ownerAccount = await gateway.services.onboarding.bootstrapOwner({ email, password });
    mappingId = ownerAccount.mapping.id;
    const { actor } = await gateway.services.tokens.authenticate(ownerAccount.token);
    const imported = await gateway.services.files.importFiles(actor, mappingId, [
      { path: 'Media/pic.png', content: PNG },
      { path: 'Media/evil.svg', content: SVG },
      { path: 'Media/page.html', content: HTML },
      { path: 'Media/fake.png', content: NOT_A_PNG },
      { path: 'Docs/spec.pdf', content: PDF },
      { path: 'Audio/talk.mp3', content: MP3 },
      { path: 'Board.canvas', content: CANVAS },
      { path: 'Media/ä ö.png', content: PNG },
    ]);
    expect(imported.rejected).toEqual([]);
    await gateway.services.notes.importNotes(actor, mappingId, [
      { path: 'Notes/Gallery.md', content: NOTE },
      { path: 'Notes/Links.md', content: LINKS },
    ]);
    const strangerEmail = `files-stranger-${randomBytes(4).toString('hex')}@example.test`;
    await gateway.services.onboarding.bootstrapOwner({ email: strangerEmail, password });
    owner = pageBrowser(gateway.url);
    stranger = pageBrowser(gateway.url);
    anonymous = pageBrowser(gateway.url);
    expect((await signInThroughForm(owner, email, password)).status).toBe(303);
    expect((await signInThroughForm(stranger, strangerEmail, password)).status).toBe(303);
  });
  afterAll(() => gateway?.stop());

  const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

  it('serves raster images, audio and PDF inline with their media type, nosniff and a policy that runs nothing', async () => {
    const png = await owner.get(raw('Media/pic.png'));
    expect(png.status).toBe(200);
    expect(await bytesOf(png)).toEqual(PNG);
    expect(Object.fromEntries(['content-type', 'content-disposition', 'x-content-type-options', 'content-security-policy', 'cross-origin-resource-policy', 'etag'].map((h) => [h, png.headers.get(h)]))).toEqual({
      'content-type': 'image/png',
      'content-disposition': `inline; filename="pic.png"; filename*=UTF-8''pic.png`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox; frame-ancestors 'self'",
      'cross-origin-resource-policy': 'same-origin',
      etag: `"${fileHash(PNG)}"`,
    });
    const unicode = await owner.get(raw('Media/ä ö.png'));
    expect(unicode.headers.get('content-disposition')).toBe(`inline; filename="_ _.png"; filename*=UTF-8''${encodeURIComponent('ä ö.png')}`);
    const pdf = await owner.get(raw('Docs/spec.pdf'));
    expect([pdf.headers.get('content-type'), pdf.headers.get('content-disposition')?.split(';')[0], pdf.headers.get('content-security-policy')]).toEqual([
      'application/pdf',
      'inline',
      "default-src 'none'; frame-ancestors 'self'",
    ]);
    const mp3 = await owner.get(raw('Audio/talk.mp3'));
    expect([mp3.headers.get('content-type'), mp3.headers.get('content-disposition')?.split(';')[0]]).toEqual(['audio/mpeg', 'inline']);
    // Revalidation by hash: the same bytes are not sent again.
    const again = await owner.get(raw('Media/pic.png'), { 'if-none-match': `"${fileHash(PNG)}"` });
    expect([again.status, (await bytesOf(again)).length]).toEqual([304, 0]);
  });

  it('never serves SVG, HTML or a file that only claims to be an image inline: they are downloads of opaque bytes', async () => {
    for (const [path, bytes] of [['Media/evil.svg', SVG], ['Media/page.html', HTML], ['Media/fake.png', NOT_A_PNG], ['Board.canvas', CANVAS]] as const) {
      const response = await owner.get(raw(path));
      expect([path, response.status, response.headers.get('content-type'), response.headers.get('content-disposition')?.split(';')[0]]).toEqual([
        path,
        200,
        'application/octet-stream',
        'attachment',
      ]);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toContain('sandbox');
      expect(await bytesOf(response)).toEqual(bytes);
    }
    const forced = await owner.get(`${raw('Media/pic.png')}?download=1`);
    expect([forced.headers.get('content-type'), forced.headers.get('content-disposition')?.split(';')[0]]).toEqual(['application/octet-stream', 'attachment']);
  });

  it('serves nothing to a stranger, to no session, or for a path that is not a stored file', async () => {
    const before = JSON.stringify(await gateway.db.query('SELECT path, content_hash, updated_at FROM vault_files ORDER BY path'));
    const signIn = await anonymous.get(raw('Media/pic.png'));
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toMatch(/^\/signin\?return_to=/);
    const refusals: [string, () => Promise<Response>, number][] = [
      ['a stranger', () => stranger.get(raw('Media/pic.png')), 404],
      ['a stranger, to the list', () => stranger.get(`/workspace/vaults/${mappingId}/files`), 404],
      ['a stranger, to a file page', () => stranger.get(`/workspace/vaults/${mappingId}/file/Board.canvas`), 404],
      ['a missing file', () => owner.get(raw('Media/none.png')), 404],
      ['a note path', () => owner.get(raw('Notes/Gallery.md')), 400],
      ['a hidden path', () => owner.get(raw('.obsidian/app.json')), 400],
      ['a bad escape', () => owner.get(`/workspace/vaults/${mappingId}/raw/%E0%A4%A`), 400],
      ['an unknown vault', () => owner.get(raw('Media/pic.png').replace(mappingId, '00000000-0000-4000-8000-000000000000')), 404],
      ['a bad kind', () => owner.get(`/workspace/vaults/${mappingId}/files?kind=note`), 400],
    ];
    for (const [label, refusal, status] of refusals) {
      const response = await refusal();
      const body = await bytesOf(response);
      expect([label, response.status, response.headers.get('content-type')]).toEqual([label, status, 'text/html; charset=UTF-8']);
      expect(body.includes(PNG)).toBe(false);
    }
    expect(JSON.stringify(await gateway.db.query('SELECT path, content_hash, updated_at FROM vault_files ORDER BY path'))).toBe(before);
  });

  it('lists canvases and attachments, by kind and by page, and shows one with a safe preview', async () => {
    const list = await (await owner.get(`/workspace/vaults/${mappingId}/files`)).text();
    for (const path of ['Audio/talk.mp3', 'Board.canvas', 'Docs/spec.pdf', 'Media/evil.svg', 'Media/pic.png']) expect(list).toContain(`>${path}</a>`);
    const canvases = await (await owner.get(`/workspace/vaults/${mappingId}/files?kind=canvas`)).text();
    expect(canvases).toContain('>Board.canvas</a>');
    expect(canvases).not.toContain('Media/pic.png');
    const after = await (await owner.get(`/workspace/vaults/${mappingId}/files?after=Media%2Fpage.html`)).text();
    expect(after).toContain('>Media/pic.png</a>');
    expect(after).not.toContain('>Board.canvas</a>');

    const board = await (await owner.get(`/workspace/vaults/${mappingId}/file/Board.canvas`)).text();
    expect(board).toContain('Canvas outline');
    expect(board).toContain('Start here');
    const svg = await (await owner.get(`/workspace/vaults/${mappingId}/file/Media/evil.svg`)).text();
    expect(svg).not.toMatch(/<img|<object|<embed|<iframe/);
    expect(svg).toContain('?download=1');
    const pic = await owner.get(`/workspace/vaults/${mappingId}/file/Media/pic.png`);
    expect(await pic.text()).toContain(`<img src="${raw('Media/pic.png')}" alt="Media/pic.png"`);
    const audio = await owner.get(`/workspace/vaults/${mappingId}/file/Audio/talk.mp3`);
    expect(await audio.text()).toContain(`<audio controls preload="metadata" src="${raw('Audio/talk.mp3')}"`);
    expect(audio.headers.get('content-security-policy')).toContain("media-src 'self'");
  });

  it('renders a note\'s embeds of stored files: images and players from the bytes route, PDFs, SVG and canvases as links', async () => {
    const page = await owner.get(`/workspace/vaults/${mappingId}/notes/Notes/Gallery.md`);
    expect(page.headers.get('content-security-policy')).toContain("img-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("media-src 'self'");
    const html = await page.text();
    expect(html).toContain(`<img class="embed" src="${raw('Media/pic.png')}" alt="pic.png" />`);
    expect(html).toContain(`<img class="embed" src="${raw('Media/pic.png')}" alt="a chart" />`);
    expect(html).toContain(`<audio controls preload="metadata" src="${raw('Audio/talk.mp3')}"`);
    expect(html).toContain(`<a class="embed" href="${raw('Docs/spec.pdf')}">PDF: spec.pdf</a>`);
    expect(html).toContain(`<a class="embed" href="/workspace/vaults/${mappingId}/file/Media/evil.svg">Attachment: evil.svg</a>`);
    expect(html).toContain(`<a class="embed" href="/workspace/vaults/${mappingId}/file/Board.canvas">Canvas: Board.canvas</a>`);
  });

  it("renders a note's links to stored files as links to their pages, and its Markdown links as its WikiLinks", async () => {
    const html = await (await owner.get(`/workspace/vaults/${mappingId}/notes/Notes/Links.md`)).text();
    const filePage = (path: string) => `/workspace/vaults/${mappingId}/file/${path}`;
    expect(html).toContain(`<a class="wikilink" href="${filePage('Docs/spec.pdf')}">the spec</a>`);
    expect(html).toContain(`<a class="wikilink" href="${filePage('Board.canvas')}">Board.canvas</a>`);
    expect(html).toContain(`<a href="${filePage('Media/pic.png')}">the picture</a>`);
    expect(html).toContain(`<a href="/workspace/vaults/${mappingId}/notes/Notes/Gallery.md">gallery</a>`);
    // A Markdown link to no note searches for it, as a WikiLink does; external links and anchors stay as written.
    expect(html).toContain(`<a href="/workspace/vaults/${mappingId}?q=Nowhere.md" class="wikilink unresolved" title="No note of this name yet">missing</a>`);
    expect(html).toContain('<a href="https://example.com/x.pdf" rel="noopener noreferrer nofollow">site</a>');
    expect(html).toContain('<a href="#links">top</a>');
    // The files it links to are listed with its links, each once.
    const files = html.slice(html.indexOf('id="files-h"'));
    expect(files.indexOf(filePage('Board.canvas'))).toBeGreaterThan(0);
    expect([...files.matchAll(/<li><a href="([^"]+)">/g)].slice(0, 3).map((m) => m[1])).toEqual([filePage('Board.canvas'), filePage('Docs/spec.pdf'), filePage('Media/pic.png')]);
  });

  it("shows on a file's page the notes that link to it or embed it, and says so when none does", async () => {
    const notesLinkingTo = async (path: string) => {
      const html = await (await owner.get(`/workspace/vaults/${mappingId}/file/${path}`)).text();
      const section = html.slice(html.indexOf('id="file-backlinks-h"'), html.indexOf('</section>', html.indexOf('id="file-backlinks-h"')));
      expect(section, path).toContain('Notes that link here');
      return { links: [...section.matchAll(/<li><a href="[^"]+\/notes\/([^"]+)">/g)].map((m) => m[1]), section };
    };
    expect((await notesLinkingTo('Docs/spec.pdf')).links).toEqual(['Notes/Gallery.md', 'Notes/Links.md']);
    expect((await notesLinkingTo('Media/pic.png')).links).toEqual(['Notes/Gallery.md', 'Notes/Links.md']);
    const unlinked = await notesLinkingTo('Media/page.html');
    expect(unlinked.links).toEqual([]);
    expect(unlinked.section).toContain('No note links to this file or embeds it.');
  });

  it('lists file changes on the events page, each linking to the file\'s page, not to a note', async () => {
    const page = await owner.get(`/workspace/vaults/${mappingId}/events`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('added a file');
    expect(html).toContain(`<a href="/workspace/vaults/${mappingId}/file/Media/pic.png">Media/pic.png</a>`);
    expect(html).not.toContain(`/notes/Media/pic.png`);
  });
});
