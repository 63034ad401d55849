import { randomBytes } from 'node:crypto';
import markdownIt, { type Env, type MarkdownIt, type StateInline, type Token } from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { locateFrontmatter, parseFrontmatter } from '../../domains/markdown/index.ts';
import { presentationOf } from './file-serving.ts';

/**
 * Where a WikiLink target (the path part, as written) leads in the workspace: the URL of the note it resolves to,
 * null when it resolves to nothing, undefined when it is not known (the relations were cut at their limit).
 */
export type LinkTargets = (target: string) => string | null | undefined;

/** A stored canvas or attachment that an embed or a link names, with its workspace addresses. */
export interface EmbeddedFileLink {
  path: string;
  kind: 'canvas' | 'attachment';
  mediaType: string;
  /** The workspace page of the file. */
  page: string;
  /** Its bytes, served to the signed-in person (file-serving.ts). */
  raw: string;
}

/** The stored file a link or embed target (as written; Markdown targets URL-decoded) names, if any. */
export type EmbeddedFiles = (target: string) => EmbeddedFileLink | undefined;

/** A note as the workspace shows it: its frontmatter (parsed, or why not) and its body as safe HTML. */
export interface RenderedNote {
  frontmatter: Record<string, unknown> | null;
  frontmatterError?: string;
  /** Sanitized HTML of the body. */
  html: string;
  /** The fenced `canvas` blocks of the body (JSON Canvas documents kept in a note), in note order. */
  canvases: string[];
}

/** A WikiLink or embed as the inline rule found it. */
interface WikiLinkMeta {
  target: string;
  fragment: string | null;
  alias: string | null;
  embed: boolean;
}

/** Splits `target#fragment|alias` as Obsidian does: the alias after the first `|`, the fragment after the first `#`. */
function splitWikiLink(inner: string): Omit<WikiLinkMeta, 'embed'> {
  const bar = inner.indexOf('|');
  const left = bar < 0 ? inner : inner.slice(0, bar);
  const alias = bar < 0 ? null : inner.slice(bar + 1).trim() || null;
  const hash = left.indexOf('#');
  return { target: (hash < 0 ? left : left.slice(0, hash)).trim(), fragment: hash < 0 ? null : left.slice(hash + 1).trim() || null, alias };
}

/** What the renderer is given per note: where its links lead. */
type RenderEnv = Env & {
  targets: LinkTargets;
  searchUrl: (query: string) => string;
  files: EmbeddedFiles;
  /** The secret of this render that marks the images and players we produced (see mediaTransform). */
  secret: string;
};

/** `[[...]]` and `![[...]]` on one line, not nested; anything else is left to the other rules. */
function wikiLinkRule(state: StateInline, silent: boolean): boolean {
  const { src } = state;
  let pos = state.pos;
  const embed = src.charCodeAt(pos) === 0x21; // !
  if (embed) pos += 1;
  if (src.charCodeAt(pos) !== 0x5b || src.charCodeAt(pos + 1) !== 0x5b) return false;
  const end = src.indexOf(']]', pos + 2);
  if (end < 0 || end > state.posMax) return false;
  const inner = src.slice(pos + 2, end);
  if (inner.trim() === '' || inner.includes('\n') || inner.includes('[[')) return false;
  if (!silent) {
    const token = state.push('wikilink', '', 0);
    token.meta = { ...splitWikiLink(inner), embed } satisfies WikiLinkMeta;
  }
  state.pos = end + 2;
  return true;
}

/** What an unresolved or unknown link shows: the target, its fragment after a ›. */
function displayOf(link: WikiLinkMeta): string {
  if (link.alias) return link.alias;
  const fragment = link.fragment ? ` › ${link.fragment.replace(/^\^/, '')}` : '';
  return `${link.target}${fragment}`.trim();
}

/**
 * The Markdown renderer of the workspace: CommonMark with tables and strikethrough (markdown-it), raw HTML of the
 * note allowed through only what the sanitizer keeps, links made clickable, and WikiLinks resolved to workspace
 * links. markdown-it already refuses `javascript:`, `vbscript:`, `file:` and most `data:` URLs; the sanitizer below
 * is the boundary that holds even if it did not.
 */
function createRenderer(): MarkdownIt {
  const md = markdownIt({ html: true, linkify: true, typographer: false });
  md.inline.ruler.before('link', 'wikilink', wikiLinkRule);
  md.renderer.rules.wikilink = (tokens, idx, _options, rendering) => {
    const env = rendering as RenderEnv;
    const link = tokens[idx]!.meta as unknown as WikiLinkMeta;
    const text = md.utils.escapeHtml(displayOf(link));
    const file = env.files(link.target);
    if (file && link.embed) return fileEmbed(md, file, link.alias, env.secret);
    if (file) return `<a class="wikilink" href="${md.utils.escapeHtml(file.page)}">${text}</a>`;
    const href = env.targets(link.target);
    if (link.embed) {
      return href ? `<a class="embed" href="${md.utils.escapeHtml(href)}">Embedded: ${text}</a>` : `<span class="embed missing">Embedded: ${text}</span>`;
    }
    if (href) return `<a class="wikilink" href="${md.utils.escapeHtml(href)}">${text}</a>`;
    const title = href === null ? 'No note of this name yet' : 'Not resolved here: search for it';
    return `<a class="wikilink unresolved" href="${md.utils.escapeHtml(env.searchUrl(link.target))}" title="${title}">${text}</a>`;
  };
  // An internal Markdown link leads where the note's relations say, as a WikiLink does: to the note or stored file it
  // resolves to, or to a search when it resolves to nothing. Left as written when its target is not known.
  const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, rendering, self) => {
    const env = rendering as RenderEnv;
    const token = tokens[idx]!;
    const href = String(token.attrGet('href') ?? '');
    const target = href.startsWith('#') ? undefined : markdownTarget(href);
    if (target !== undefined && target !== '') {
      const file = env.files(target);
      const note = file ? undefined : env.targets(target);
      if (file) token.attrSet('href', file.page);
      else if (note) token.attrSet('href', note);
      else if (note === null) {
        token.attrSet('href', env.searchUrl(target));
        token.attrSet('class', 'wikilink unresolved');
        token.attrSet('title', 'No note of this name yet');
      }
    }
    return defaultLinkOpen(tokens, idx, options, rendering, self);
  };
  const defaultImage = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, rendering, self) => {
    const env = rendering as RenderEnv;
    const token = tokens[idx]!;
    const target = markdownTarget(String(token.attrGet('src') ?? ''));
    const file = target === undefined ? undefined : env.files(target);
    if (file) return fileEmbed(md, file, self.renderInlineAsText(token.children ?? [], options, env) || null, env.secret);
    return defaultImage(tokens, idx, options, rendering, self);
  };
  return md;
}

/**
 * The target a Markdown image names, as the note index stores it (URL-decoded, without `#...`), from markdown-it's
 * normalized `src`; undefined for external URLs and what cannot be decoded.
 */
function markdownTarget(src: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(src) || src.startsWith('//')) return undefined;
  const hash = src.indexOf('#');
  try {
    return decodeURIComponent(hash < 0 ? src : src.slice(0, hash));
  } catch {
    return undefined;
  }
}

/** Obsidian's size alias of an image embed: `![[a.png|300]]` or `|300x200`. */
const IMAGE_SIZE = /^(\d{1,4})(?:x(\d{1,4}))?$/;

/**
 * An embed of a stored file: raster images as images and audio as a player, served from our own route and marked
 * with this render's secret (only marked images and players pass the sanitizer); PDFs, canvases and other files as
 * links (a PDF opens in the browser's viewer, the rest on the file's page).
 */
function fileEmbed(md: MarkdownIt, file: EmbeddedFileLink, alias: string | null, secret: string): string {
  const esc = md.utils.escapeHtml;
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  const presentation = presentationOf(file.mediaType);
  if (file.kind === 'attachment' && presentation === 'image') {
    const size = alias ? IMAGE_SIZE.exec(alias) : null;
    const dimensions = size ? ` width="${size[1]}"${size[2] ? ` height="${size[2]}"` : ''}` : '';
    const alt = alias && !size ? alias : name;
    return `<img class="embed" src="${esc(file.raw)}" alt="${esc(alt)}"${dimensions} ${EMBED_ATTRIBUTE}="${secret}">`;
  }
  if (file.kind === 'attachment' && presentation === 'audio') {
    return `<audio controls preload="metadata" src="${esc(file.raw)}" title="${esc(alias ?? name)}" ${EMBED_ATTRIBUTE}="${secret}"></audio> <a class="embed" href="${esc(file.page)}">${esc(alias ?? name)}</a>`;
  }
  if (file.kind === 'attachment' && presentation === 'pdf') {
    return `<a class="embed" href="${esc(file.raw)}">PDF: ${esc(alias ?? name)}</a>`;
  }
  const label = file.kind === 'canvas' ? 'Canvas' : 'Attachment';
  return `<a class="embed" href="${esc(file.page)}">${label}: ${esc(alias ?? name)}</a>`;
}

const renderer = createRenderer();

/**
 * What a note's HTML may contain: the structure Markdown produces and the harmless HTML people write in notes
 * (details, kbd, sub, sup). No script, style, form, frame or event attribute; links only to http(s), mailto and
 * relative URLs. Images become links: the pages' Content-Security-Policy loads no image from elsewhere (an image
 * from another site would tell it who reads the note and when).
 */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'blockquote', 'pre', 'code', 'ul', 'ol', 'li', 'hr', 'br'],
    ...['table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'em', 'strong', 's', 'del', 'kbd', 'sub', 'sup', 'mark'],
    ...['details', 'summary', 'span', 'div', 'dl', 'dt', 'dd', 'abbr', 'img', 'audio'],
  ],
  allowedAttributes: {
    '*': ['id'],
    pre: ['tabindex'],
    a: ['href', 'title', 'class', 'rel'],
    code: ['class'],
    span: ['class', 'title'],
    abbr: ['title'],
    ol: ['start'],
    // Only the images and players of stored files that the renderer produced (mediaTransform): never the note's own.
    img: ['src', 'alt', 'width', 'height', 'class'],
    audio: ['src', 'controls', 'preload', 'title'],
  },
  allowedClasses: { a: ['wikilink', 'unresolved', 'embed', 'image'], span: ['embed', 'missing'], code: ['language-*'], img: ['embed'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    // A code block that scrolls sideways must be reachable by keyboard (WCAG 2.1.1).
    pre: (_tag, attribs) => ({ tagName: 'pre', attribs: { tabindex: '0', ...(attribs[LINE_ATTRIBUTE] ? { [LINE_ATTRIBUTE]: attribs[LINE_ATTRIBUTE] } : {}) } }),
    img: (_tag, attribs) => imageAsLink(attribs),
    a: (_tag, attribs) => {
      const external = /^[a-z][a-z0-9+.-]*:/i.test(attribs.href ?? '');
      return { tagName: 'a', attribs: external ? { ...attribs, rel: 'noopener noreferrer nofollow' } : attribs };
    },
  },
};

/** The attribute that marks the images and players of stored files the renderer produced (see mediaTransform). */
const EMBED_ATTRIBUTE = 'data-kgate-embed';
/** Where the workspace serves stored files: the only source a marked image or player may have. */
const RAW_SOURCE = /^\/workspace\/vaults\/[^/?#]+\/raw\//;

/**
 * The sanitizer's rule for `img` and `audio`: kept only when the renderer made them for a stored file (the mark
 * carries this render's secret) and their source is our own file route; every other image becomes a link, as
 * before, and every other player is dropped. A note's HTML can neither forge the mark nor load anything else.
 */
function mediaTransform(secret: string): sanitizeHtml.Transformer {
  return (tagName, attribs) => {
    const { [EMBED_ATTRIBUTE]: mark, ...rest } = attribs;
    if (mark === secret && RAW_SOURCE.test(rest.src ?? '')) return { tagName, attribs: rest };
    if (tagName === 'img') return imageAsLink(attribs);
    return { tagName: 'span', attribs: { class: 'embed missing' }, text: '' };
  };
}

/** An image the note shows by itself, as a link: the pages load no image from elsewhere (see SANITIZE). */
function imageAsLink(attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const href = attribs.src ?? '';
  const external = /^[a-z][a-z0-9+.-]*:/i.test(href);
  return { tagName: 'a', attribs: { href, class: 'image', ...(external ? { rel: 'noopener noreferrer nofollow' } : {}) }, text: `Image: ${attribs.alt || href}` };
}

/** The attribute that carries a line anchor from the renderer through the sanitizer (see lineAnchors). */
const LINE_ATTRIBUTE = 'data-kgate-line';

const LIST_OPENS = new Set(['bullet_list_open', 'ordered_list_open']);

/**
 * Marks the outermost block (a list item rather than its list) that starts on each source line with that line's
 * number in the note (1-based, the frontmatter counted), so that the evidence of knowledge records
 * (docs/knowledge.md) can link to `#L12`. The mark carries a secret of this render: the sanitizer turns only marks
 * with it into ids and drops every other id, so HTML written in a note can neither forge an anchor nor set an id.
 */
function markLines(tokens: readonly Token[], firstLine: number, secret: string): void {
  const marked = new Set<number>();
  for (const token of tokens) {
    // A list's line is its first item's: the item is what the evidence names.
    if (!token.map || token.nesting === -1 || token.type === 'html_block' || LIST_OPENS.has(token.type)) continue;
    const line = firstLine + token.map[0];
    if (marked.has(line)) continue;
    marked.add(line);
    token.attrSet(LINE_ATTRIBUTE, `${secret}:${line}`);
  }
}

/** The sanitizer's rule for ids: `L<line>` from a mark of this render (markLines), no other. */
function lineAnchors(secret: string): sanitizeHtml.Transformer {
  return (tagName, attribs) => {
    const { id: _written, [LINE_ATTRIBUTE]: mark, ...rest } = attribs;
    const line = mark?.startsWith(`${secret}:`) ? mark.slice(secret.length + 1) : undefined;
    return { tagName, attribs: line && /^\d+$/.test(line) ? { ...rest, id: `L${line}` } : rest };
  };
}

/** Whether a fenced code block holds a JSON Canvas document: its info string is `canvas` or `json-canvas`. */
const CANVAS_FENCE = /^(?:json-)?canvas$/i;

/** How many line breaks `text` holds: the lines before the body. */
function lineCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

/**
 * Renders a note for the workspace: its frontmatter apart, its body as sanitized HTML with WikiLinks resolved
 * through `targets`, and unresolved ones searching the vault with `searchUrl`; each block that starts a source line
 * has the id `L<line>`. The body is parsed once.
 */
export function renderNote(
  content: string,
  targets: LinkTargets,
  searchUrl: (query: string) => string,
  files: EmbeddedFiles = () => undefined,
): RenderedNote {
  const block = locateFrontmatter(content);
  const body = block ? content.slice(block.bodyStart) : content;
  const parsed = block ? parseFrontmatter(content) : { data: null };
  const secret = randomBytes(12).toString('base64url');
  const env: RenderEnv = { targets, searchUrl, files, secret };
  const tokens = renderer.parse(body, env);
  markLines(tokens, lineCount(content.slice(0, block ? block.bodyStart : 0)) + 1, secret);
  return {
    frontmatter: parsed.data,
    ...(parsed.error ? { frontmatterError: parsed.error } : {}),
    html: sanitizeHtml(renderer.renderer.render(tokens, renderer.options, env), { ...SANITIZE, transformTags: { ...SANITIZE.transformTags, img: mediaTransform(secret), audio: mediaTransform(secret), '*': lineAnchors(secret) } }),
    canvases: tokens.filter((token) => token.type === 'fence' && CANVAS_FENCE.test(token.info.trim())).map((token) => token.content),
  };
}
