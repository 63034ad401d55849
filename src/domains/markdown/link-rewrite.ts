import type { MarkdownLink, MarkdownModel, NoteLink } from './markdown-model.ts';
import type { LinkResolver } from './wikilink-resolution.ts';

/** The result of a rewrite: the new content, how many links changed, and how many could not be written. */
export interface LinkRewrite {
  content: string;
  changed: number;
  /** Links whose new target cannot be written in their syntax (for example `|` or `#` in a WikiLink target). */
  skipped: number;
}

/** One link's new target, for {@link rewriteWikiLinks}: undefined leaves the link as it is. */
export type LinkTargetReplacer = (link: NoteLink) => string | undefined;

/** Characters that end or split a WikiLink target, so a path holding them cannot be linked that way. */
const WIKI_UNSAFE = /[|#[\]\\\r\n]/;
const ENCODED_NON_ASCII = /%[89a-fA-F][0-9a-fA-F]/;
/** Characters a bare Markdown destination cannot hold, or that our reading of it would change. */
const HREF_UNSAFE = /[%()<>#\\]/;

/**
 * Rewrites the targets of a note's WikiLinks, embeds and internal Markdown links. `replace` sees each link and
 * returns the new target: for a WikiLink the text between `[[` and `#`/`|`/`]]`, for a Markdown link the decoded
 * path before `#`. Only those characters change: `!`, `#heading`, `#^block`, `|alias`, link text, titles and every
 * byte outside links (frontmatter included) stay as they are. A Markdown destination keeps its form: `<...>`
 * stays, and is otherwise percent-encoded where needed (non-ASCII too when the original encoded non-ASCII).
 * `model` must be `parseMarkdown(content)`; a model of other content throws.
 */
export function rewriteWikiLinks(content: string, model: MarkdownModel, replace: LinkTargetReplacer): LinkRewrite {
  const edits: { start: number; end: number; text: string }[] = [];
  let skipped = 0;
  for (const link of model.wikiLinks) {
    const target = replace(link);
    if (target === undefined || target === link.target) continue;
    if (WIKI_UNSAFE.test(target) || (target.trim() !== target && target !== '') || (target === '' && !link.heading && !link.blockId)) {
      skipped += 1;
      continue;
    }
    edits.push({ start: link.targetStart, end: link.targetEnd, text: target });
  }
  for (const link of model.links) {
    if (link.external || link.path === undefined) continue;
    const target = replace(link);
    if (target === undefined || target === link.path) continue;
    const text = encodeHrefPath(target, link);
    if (text === undefined) {
      skipped += 1;
      continue;
    }
    const hash = link.href.indexOf('#');
    edits.push({ start: link.hrefStart, end: hash === -1 ? link.hrefEnd : link.hrefStart + hash, text });
  }
  if (edits.length === 0) return { content, changed: 0, skipped };
  // A model of other content would splice links into the wrong places: refuse rather than corrupt the note.
  for (const link of [...model.wikiLinks, ...model.links]) {
    if (!content.startsWith(link.raw, link.start)) throw new Error('rewriteWikiLinks: the model was not parsed from this content');
  }
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const edit of edits) {
    out += content.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return { content: out + content.slice(at), changed: edits.length, skipped };
}

/** A Markdown destination path written in the original link's style; undefined when it cannot be written. */
function encodeHrefPath(path: string, link: MarkdownLink): string | undefined {
  if (link.angle) return /[<>\r\n]/.test(path) ? undefined : path;
  if (path === '') return undefined;
  const hash = link.href.indexOf('#');
  const original = hash === -1 ? link.href : link.href.slice(0, hash);
  const encodeNonAscii = ENCODED_NON_ASCII.test(original);
  let out = '';
  for (const ch of path) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) return undefined; // a lone surrogate has no UTF-8 form
    const unsafe = code <= 0x20 || code === 0x7f || HREF_UNSAFE.test(ch) || (code > 0x7f && encodeNonAscii);
    out += !unsafe ? ch : code < 0x80 ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : encodeURIComponent(ch);
  }
  return out;
}

/** A file moved or renamed, and the vault's link resolvers before and after. */
export interface LinkMove {
  /** The note whose links are rewritten, at its path before the move. */
  sourcePath: string;
  /** The moved file's path before and after. */
  from: string;
  to: string;
  before: LinkResolver;
  after: LinkResolver;
}

const samePath = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/**
 * Rewrites one note's links for a move of `from` to `to`. A link that resolved to `from` is rewritten to resolve to
 * `to`; a link to another file that the move would redirect (a same-named file now nearer) is rewritten to keep
 * its file. The new text keeps the link's form: `./`/`../` links stay relative, folder-qualified links stay
 * qualified (as many trailing folders as before when that is enough, else the full path), bare names become the
 * shortest unique text; `.md` is written only where the original wrote it. When the note itself is the one moved,
 * its relative links are recomputed from its new folder. Links that resolved nowhere, and links within the note,
 * are left alone.
 */
export function retargetLinks(content: string, model: MarkdownModel, move: LinkMove): LinkRewrite {
  const sourceAfter = samePath(move.sourcePath, move.from) ? move.to : move.sourcePath;
  return rewriteWikiLinks(content, model, (link) => {
    const written = linkTarget(link);
    if (written === '') return undefined;
    const was = move.before.resolveLink(link, move.sourcePath);
    if (was === undefined) return undefined;
    const want = samePath(was, move.from) ? move.to : was;
    if (samePath(move.after.resolveLink(link, sourceAfter), want)) return undefined;
    return linkTextFor(want, written, sourceAfter, move.after);
  });
}

function linkTarget(link: NoteLink): string {
  return link.kind === 'wikilink' ? link.target : (link.path ?? '');
}

/** Target text in the style of `written` that resolves to `path` from `sourcePath`. */
function linkTextFor(path: string, written: string, sourcePath: string, resolver: LinkResolver): string {
  const keepMd = written.toLowerCase().endsWith('.md');
  const shown = (text: string) => (!keepMd && text.toLowerCase().endsWith('.md') ? text.slice(0, -3) : text);
  const candidates: string[] = [];
  if (written.startsWith('./') || written.startsWith('../')) {
    candidates.push(shown(relativePath(sourcePath, path)));
  } else if (written.includes('/')) {
    const segments = written.replace(/^\/+/, '').split('/').length;
    const rooted = written.startsWith('/') ? '/' : '';
    candidates.push(rooted + shown(path.split('/').slice(-segments).join('/')), rooted + shown(path));
  } else {
    const shortest = resolver.shortestLinkText(path);
    candidates.push(keepMd && path.toLowerCase().endsWith('.md') ? `${shortest}.md` : shortest);
  }
  for (const text of candidates) if (samePath(resolver.resolve(text, sourcePath), path)) return text;
  return path;
}

/** The `./` or `../` path from the folder of `fromPath` to `toPath`. */
function relativePath(fromPath: string, toPath: string): string {
  const from = fromPath.split('/').slice(0, -1);
  const to = toPath.split('/');
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common += 1;
  const up = from.length - common;
  const rest = to.slice(common).join('/');
  return up === 0 ? `./${rest}` : `${'../'.repeat(up)}${rest}`;
}
