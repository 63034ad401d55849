/**
 * Canvases and attachments in the workspace, in real Chromium: a note's embedded images load from the bytes route
 * under the pages' policy, audio gets a player, a stored SVG opened directly is a download that runs nothing, the
 * file list and file pages work, and axe-core finds nothing serious on any of them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.KGATE_REQUIRE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
// If any of it ran, it would set window.__pwned (or top's).
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="top.__pwned=\'svg\'"><script>top.__pwned = \'svg-script\'</script></svg>');
const CANVAS = Buffer.from(JSON.stringify({ nodes: [{ id: 'a', type: 'text', text: 'Start here', x: 0, y: 0, width: 10, height: 10 }], edges: [] }));
const NOTE = [
  '# Gallery',
  '',
  '![[pic.png]]',
  '',
  '![a chart](../Media/pic.png)',
  '',
  '![[talk.mp3]]',
  '',
  '![[spec.pdf]]',
  '',
  '![[evil.svg]]',
  '',
  '![[Board.canvas]]',
  '',
  '<img src="/workspace/vaults/x/raw/Media/pic.png" data-kgate-embed="forged" onerror="window.__pwned=\'img\'">',
  '',
].join('\n');

/** The decoded widths of the images a locator finds (0 for an image that did not load). */
const naturalWidths = (images: Locator) => images.evaluateAll((all: unknown[]) => all.map((img) => (img as { naturalWidth: number }).naturalWidth));

describe.skipIf(!available)('canvases and attachments in the workspace, in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  let mappingId: string;
  const email = `files-browser-${randomBytes(4).toString('hex')}@example.test`;
  const password = 'a long workspace password';

  beforeAll(async () => {
    gateway = await startTestGateway();
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password });
    mappingId = owner.mapping.id;
    const { actor } = await gateway.services.tokens.authenticate(owner.token);
    const imported = await gateway.services.files.importFiles(actor, mappingId, [
      { path: 'Media/pic.png', content: PNG },
      { path: 'Media/evil.svg', content: SVG },
      { path: 'Docs/spec.pdf', content: Buffer.from('%PDF-1.4\n%%EOF\n') },
      { path: 'Audio/talk.mp3', content: Buffer.from('ID3') },
      { path: 'Board.canvas', content: CANVAS },
    ]);
    expect(imported.rejected).toEqual([]);
    await gateway.services.notes.importNotes(actor, mappingId, [{ path: 'Notes/Gallery.md', content: NOTE }]);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
    page = await (await browser.newContext({ acceptDownloads: true })).newPage();
    await page.goto(`${gateway.baseUrl}/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('shows a note\'s embedded images, loaded from the bytes route, an audio player, and links for the rest', async () => {
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) blocked.push(message.text());
    });
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/notes/Notes/Gallery.md`);
    const images = page.locator('article img.embed');
    await expect.poll(() => images.count()).toBe(2);
    // Both decoded: the session's cookie went with them and the policy allowed our own origin.
    await expect.poll(() => naturalWidths(images)).toEqual([1, 1]);
    expect(await images.nth(1).getAttribute('alt')).toBe('a chart');
    expect(await page.locator('article audio[controls]').getAttribute('src')).toBe(`/workspace/vaults/${mappingId}/raw/Audio/talk.mp3`);
    expect(await page.getByRole('link', { name: 'PDF: spec.pdf' }).getAttribute('href')).toBe(`/workspace/vaults/${mappingId}/raw/Docs/spec.pdf`);
    expect(await page.getByRole('link', { name: 'Attachment: evil.svg' }).getAttribute('href')).toBe(`/workspace/vaults/${mappingId}/file/Media/evil.svg`);
    // The note's own <img> is a link, not an image, and nothing it carried ran.
    expect(await page.locator('article img').count()).toBe(2);
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(blocked).toEqual([]);
    await expectAccessible(page);
  });

  it('lists the files, shows a canvas\'s outline and an image on their pages', async () => {
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/files`);
    expect(await page.locator('table tbody tr').count()).toBe(5);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'canvases' }).click();
    expect(await page.locator('table tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Board.canvas' }).click();
    expect(await page.locator('pre.outline').innerText()).toContain('Start here');
    await expectAccessible(page);
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/file/Media/pic.png`);
    await expect.poll(() => naturalWidths(page.locator('figure img'))).toEqual([1]);
    await expectAccessible(page);
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/file/Audio/talk.mp3`);
    expect(await page.locator('audio[controls]').count()).toBe(1);
    await expectAccessible(page);
  });

  it('turns a stored SVG opened directly into a download that runs nothing', async () => {
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/files`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/raw/Media/evil.svg`).catch(() => null),
    ]);
    expect(download.suggestedFilename()).toBe('evil.svg');
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    // A raster image opened directly is shown by the browser itself.
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/raw/Media/pic.png`);
    expect(await naturalWidths(page.locator('img'))).toEqual([1]);
  });
});
