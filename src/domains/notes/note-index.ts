import { isExternalHref, parseFrontmatter, parseMarkdown, noteTags, type NoteLink } from '../markdown/index.ts';

/** The parser behind the stored model; bump it when what `deriveNoteIndex` stores changes, to re-index. */
export const NOTE_MODEL_VERSION = 2;

/** Most links stored per note; a note with more keeps the first ones (the model marks itself truncated). */
export const MAX_LINKS_PER_NOTE = 2000;

/** One stored link of a note (a row of note_links). */
export interface StoredLink {
  kind: 'wikilink' | 'markdown';
  embed: boolean;
  target: string;
  targetNameKey: string;
  heading: string | null;
  blockId: string | null;
  alias: string | null;
  line: number;
}

/** What is stored beside a note's content: its search text, tags and links. */
export interface NoteIndexEntry {
  searchText: string;
  tagKeys: string[];
  links: StoredLink[];
}

/**
 * The lower-cased file name a link target names: its last path segment without `.md`. A note's incoming links are
 * the links whose name key is the note's own file name (then resolved, since several notes may share a name).
 */
export function targetNameKey(target: string): string {
  // NFC, as note paths are stored: a link typed with a combining accent must find its note's incoming links.
  const last = target.slice(target.lastIndexOf('/') + 1).trim().normalize('NFC').toLowerCase();
  return last.endsWith('.md') ? last.slice(0, -3) : last;
}

function storedLink(link: NoteLink): StoredLink | undefined {
  if (link.kind === 'wikilink') {
    return {
      kind: 'wikilink',
      embed: link.embed,
      target: link.target,
      targetNameKey: targetNameKey(link.target),
      heading: link.heading ?? null,
      blockId: link.blockId ?? null,
      alias: link.alias ?? null,
      line: link.line,
    };
  }
  if (link.external || isExternalHref(link.href) || link.path === undefined) return undefined;
  return {
    kind: 'markdown',
    embed: link.embed,
    target: link.path,
    targetNameKey: targetNameKey(link.path),
    heading: link.heading ?? null,
    blockId: link.blockId ?? null,
    alias: link.text === '' ? null : link.text,
    line: link.line,
  };
}

/** Parses a note once and keeps what search and the link graph need. */
export function deriveNoteIndex(content: string): NoteIndexEntry {
  // YAML is parsed only for notes that have frontmatter: its tags count as the note's tags.
  const frontmatterData = content.startsWith('---') || content.startsWith('\uFEFF---') ? parseFrontmatter(content).data : null;
  const model = parseMarkdown(content, { frontmatterData });
  const links: StoredLink[] = [];
  for (const link of [...model.wikiLinks, ...model.links].sort((a, b) => a.start - b.start)) {
    const stored = storedLink(link);
    if (stored) links.push(stored);
    if (links.length >= MAX_LINKS_PER_NOTE) break;
  }
  return { searchText: model.searchText, tagKeys: noteTags(model).map((tag) => tag.key), links };
}
