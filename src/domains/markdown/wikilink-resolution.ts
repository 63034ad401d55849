import type { NoteLink } from './markdown-model.ts';

/**
 * Resolves link targets against the files of one vault, the way Obsidian does (the rules are in docs/markdown.md).
 * Build it once per vault version; each lookup is a few map reads.
 */
export interface LinkResolver {
  /** The vault path a target (the path part of a link, without `#...` or `|...`) points to from `sourcePath`. */
  resolve(target: string, sourcePath: string): string | undefined;
  /** The vault path a parsed link points to from `sourcePath`; undefined for external and unresolved links. */
  resolveLink(link: NoteLink, sourcePath: string): string | undefined;
  /** The shortest target text that resolves to `path` from any note, without `.md`. */
  shortestLinkText(path: string): string;
  /** Whether the vault has this path (case-insensitively). */
  has(path: string): boolean;
}

/** One vault file under its lowercased path. */
interface Entry {
  path: string;
  key: string;
}

const NON_ASCII = /[\u0080-\uffff]/;
/** A target names a file exactly first, then a note without its `.md`. */
const TIERS = ['', '.md'] as const;

/** Builds the resolver for a vault's paths (vault-relative, `/`-separated; notes, canvases and attachments). */
export function createLinkResolver(paths: Iterable<string>): LinkResolver {
  return new VaultLinkIndex(paths);
}

const bySegmentsThenLength = (a: Entry, b: Entry) =>
  segmentCount(a.key) - segmentCount(b.key) || a.path.length - b.path.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

function segmentCount(path: string): number {
  let count = 1;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) count += 1;
  return count;
}

function normalizeTarget(target: string): string {
  const trimmed = target.trim();
  return NON_ASCII.test(trimmed) ? trimmed.normalize('NFC') : trimmed;
}

class VaultLinkIndex implements LinkResolver {
  private readonly byPath = new Map<string, Entry>();
  /** Lowercased file name (with extension) to the files of that name, best candidate first. */
  private readonly byName = new Map<string, Entry[]>();
  private lastSource = '';
  private lastSourceFolder = '';

  constructor(paths: Iterable<string>) {
    for (const raw of paths) {
      const path = NON_ASCII.test(raw) ? raw.normalize('NFC') : raw;
      const key = path.toLowerCase();
      const existing = this.byPath.get(key);
      // Paths are unique case-insensitively; should two differ only in case, the smaller one wins, every time.
      if (existing && existing.path <= path) continue;
      const entry = { path, key };
      this.byPath.set(key, entry);
      const name = key.slice(key.lastIndexOf('/') + 1);
      const list = this.byName.get(name);
      if (!list) this.byName.set(name, [entry]);
      else if (existing) list[list.indexOf(existing)] = entry;
      else list.push(entry);
    }
    for (const list of this.byName.values()) if (list.length > 1) list.sort(bySegmentsThenLength);
  }

  has(path: string): boolean {
    return this.byPath.has(normalizeTarget(path).toLowerCase());
  }

  resolveLink(link: NoteLink, sourcePath: string): string | undefined {
    if (link.kind === 'wikilink') return this.resolve(link.target, sourcePath);
    return link.external || link.path === undefined ? undefined : this.resolve(link.path, sourcePath);
  }

  resolve(target: string, sourcePath: string): string | undefined {
    const text = normalizeTarget(target);
    if (text === '') return sourcePath;
    let key = text.toLowerCase();
    if (key.startsWith('./') || key.startsWith('../')) {
      const joined = joinRelative(this.sourceFolder(sourcePath), key);
      return joined === undefined ? undefined : this.exact(joined);
    }
    // A leading `/` anchors the target at the vault root.
    if (key.startsWith('/')) return this.exact(key.replace(/^\/+/, ''));
    while (key.endsWith('/')) key = key.slice(0, -1);
    const slash = key.lastIndexOf('/');
    if (slash !== -1) {
      const found = this.exact(key);
      if (found) return found;
    }
    const folder = this.sourceFolder(sourcePath);
    for (const suffix of TIERS) {
      const candidates = this.byName.get(slash === -1 ? key + suffix : key.slice(slash + 1) + suffix);
      if (!candidates) continue;
      const tail = `/${key}${suffix}`;
      // Most names are unique: the one file is the answer, near the source or not.
      if (candidates.length === 1) {
        if (slash === -1 || candidates[0]!.key.endsWith(tail)) return candidates[0]!.path;
        continue;
      }
      const near = this.byPath.get(folder === '' ? key + suffix : `${folder}${tail}`);
      if (near) return near.path;
      if (slash === -1) return candidates[0]!.path;
      for (const candidate of candidates) if (candidate.key.endsWith(tail)) return candidate.path;
    }
    return undefined;
  }

  shortestLinkText(path: string): string {
    const key = normalizeTarget(path).toLowerCase();
    const canonical = this.byPath.get(key)?.path ?? normalizeTarget(path);
    const display = key.endsWith('.md') ? canonical.slice(0, -3) : canonical;
    const segments = display.split('/');
    for (let count = 1; count < segments.length; count += 1) {
      const text = segments.slice(segments.length - count).join('/');
      if (this.onlyMatch(text.toLowerCase()) === key) return text;
    }
    // The full path resolves exactly, unless a file named like it without `.md` exists: then keep the extension.
    return this.exact(display.toLowerCase()) === canonical || !this.byPath.has(key) ? display : canonical;
  }

  /** The key of the single file a target text could match anywhere, or undefined when none or several do. */
  private onlyMatch(key: string): string | undefined {
    const slash = key.lastIndexOf('/');
    let match: string | undefined;
    for (const suffix of TIERS) {
      const tail = `/${key}${suffix}`;
      for (const candidate of this.byName.get(key.slice(slash + 1) + suffix) ?? []) {
        if (slash !== -1 && candidate.key !== key + suffix && !candidate.key.endsWith(tail)) continue;
        if (match !== undefined) return undefined;
        match = candidate.key;
      }
    }
    return match;
  }

  private exact(key: string): string | undefined {
    return (this.byPath.get(key) ?? this.byPath.get(`${key}.md`))?.path;
  }

  /** The lowercased folder of the source note ('' at the root); remembered, as links come grouped by note. */
  private sourceFolder(sourcePath: string): string {
    if (sourcePath !== this.lastSource) {
      const key = normalizeTarget(sourcePath).toLowerCase();
      this.lastSource = sourcePath;
      this.lastSourceFolder = key.slice(0, Math.max(0, key.lastIndexOf('/')));
    }
    return this.lastSourceFolder;
  }
}

/** Joins a `./` or `../` target to a folder; undefined when it climbs above the vault root. */
export function joinRelative(folder: string, target: string): string | undefined {
  const parts = folder === '' ? [] : folder.split('/');
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else {
      parts.push(segment);
    }
  }
  return parts.join('/');
}
