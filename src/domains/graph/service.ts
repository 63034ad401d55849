import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import { normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import { fileNameResolver, resolveFileTargets } from '../files/index.ts';
import type { LinkResolver } from '../markdown/index.ts';
import { MAX_LINKS_PER_NOTE, assertReadableBodies, targetNameKey } from '../notes/index.ts';
import type { VaultsService } from '../vaults/index.ts';
import {
  DEFAULT_RELATIONS_LIMIT,
  MAX_INCOMING_CANDIDATES,
  MAX_RELATIONS_LIMIT,
  type Embed,
  type EmbeddedFile,
  type FileLink,
  type GraphRelations,
  type IncomingLink,
  type OutgoingLink,
  type RelationsRequest,
  type UnresolvedLink,
} from './contract.ts';
import { createResolverCache, RESOLVER_CACHE_VAULTS } from './resolver-cache.ts';
import * as store from './store.ts';

/** The WikiLink graph of hosted vaults. */
export interface GraphService {
  /**
   * The relations of one note: its outgoing links, embeds, links to stored files and unresolved links, and the
   * links of other notes that resolve to it, each list bounded by `limit`. Targets are resolved against the vault's
   * current notes and files (docs/markdown.md), so a note created later resolves links written earlier.
   * `not_found` when there is no such note; device-encrypted mappings are refused, since links come from note bodies.
   */
  relations(actor: Actor, mappingId: string, request: RelationsRequest): Promise<GraphRelations>;
  /**
   * The links and embeds of notes that resolve to the stored canvas or attachment at `path` (a file's backlinks),
   * by source path then line, at most `limit` (default DEFAULT_RELATIONS_LIMIT). Empty when no such file is stored.
   */
  fileIncoming(actor: Actor, mappingId: string, request: RelationsRequest): Promise<{ incoming: IncomingLink[]; truncated: boolean }>;
}

/** Most incoming candidates read per query. */
const CANDIDATE_PAGE = 1000;
/** Fewest read per query, so that names shared by many notes take few round trips. */
const MIN_CANDIDATE_PAGE = 64;

function boundedLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_RELATIONS_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RELATIONS_LIMIT) {
    throw new KgateError('invalid_request', `limit is an integer from 1 to ${MAX_RELATIONS_LIMIT}.`, { field: 'limit' });
  }
  return limit;
}

function linkFields(row: store.LinkRow) {
  return { kind: row.kind, heading: row.heading, blockId: row.block_id, alias: row.alias, line: row.line + 1 };
}

/**
 * The name keys a link to `path` can have: its file name without `.md`, and for a note named `x.md.md` also
 * `x`, since `[[x.md]]` finds it (docs/markdown.md, resolution rule 3).
 */
function nameKeysOf(path: string): string[] {
  const key = targetNameKey(path);
  return key.endsWith('.md') ? [key, targetNameKey(key)] : [key];
}

/** The stored file each link or embed target of the note names (files/resolve.ts), by target as written. */
async function linkedFilesOf(db: Database, vaultId: string, links: readonly store.LinkRow[], sourcePath: string): Promise<Map<string, EmbeddedFile>> {
  const found = await resolveFileTargets(db, vaultId, sourcePath, links.map((link) => link.target));
  const files = new Map<string, EmbeddedFile>();
  for (const [target, file] of found) files.set(target, { path: file.path, kind: file.kind, mediaType: file.mediaType, size: file.size });
  return files;
}

/** Sorts what one note links to into the four outgoing lists; links and embeds of stored files name them (`files`). */
function outgoingOf(links: readonly store.LinkRow[], sourcePath: string, resolver: LinkResolver, limit: number, files: ReadonlyMap<string, EmbeddedFile>) {
  const outgoing: OutgoingLink[] = [];
  const embeds: Embed[] = [];
  const fileLinks: FileLink[] = [];
  const unresolved: UnresolvedLink[] = [];
  let truncated = links.length >= MAX_LINKS_PER_NOTE; // the note index keeps only the first links of a note
  for (const link of links) {
    // A file named exactly by the target wins over a note named by the target plus `.md` (Obsidian's order).
    const file = files.get(link.target) ?? null;
    const resolved = file ? null : (resolver.resolve(link.target, sourcePath) ?? null);
    const list: unknown[] = link.embed ? embeds : file ? fileLinks : resolved === null ? unresolved : outgoing;
    if (list.length >= limit) {
      truncated = true;
      continue;
    }
    if (link.embed) embeds.push({ target: link.target, resolved, file, ...linkFields(link) });
    else if (file) fileLinks.push({ target: link.target, file, ...linkFields(link) });
    else if (resolved === null) unresolved.push({ target: link.target, ...linkFields(link) });
    else outgoing.push({ path: resolved, target: link.target, ...linkFields(link) });
  }
  return { outgoing, embeds, fileLinks, unresolved, truncated };
}

/** Where incoming links are looked for: the name keys they name, a note whose own links are left out, and the test. */
interface IncomingSearch {
  nameKeys: readonly string[];
  /** The note itself, whose links to itself are outgoing; null for a file. */
  excludeNoteId: string | null;
  /** Whether a candidate link, resolved from its own note, names what the search is for. */
  resolvesHere(target: string, sourcePath: string): boolean;
}

/**
 * Links of other notes that resolve to a note or a file: candidates are read by the file name they name, in pages,
 * and each is resolved from its own note, since several notes or files may share a name. Stops at `limit` links or
 * `candidates` candidates read, and says so.
 */
async function incomingOf(db: Database, vaultId: string, search: IncomingSearch, bounds: { limit: number; candidates: number }) {
  const { limit, candidates } = bounds;
  const incoming: IncomingLink[] = [];
  let scanned = 0;
  for (const nameKey of search.nameKeys) {
    let after: store.CandidateCursor | null = null;
    for (;;) {
      // Enough for the links still wanted, should they all resolve here; one more tells whether more exist.
      const pageSize = Math.min(CANDIDATE_PAGE, Math.max(limit - incoming.length + 1, MIN_CANDIDATE_PAGE), candidates - scanned + 1);
      const rows = await store.listIncomingCandidates(db, vaultId, nameKey, search.excludeNoteId, after, pageSize);
      for (const row of rows) {
        if (scanned === candidates) return { incoming, truncated: true };
        scanned += 1;
        if (!search.resolvesHere(row.target, row.source_path)) continue;
        if (incoming.length === limit) return { incoming, truncated: true };
        incoming.push({ sourcePath: row.source_path, embed: row.embed, ...linkFields(row) });
      }
      if (rows.length < pageSize) break;
      const last = rows[rows.length - 1]!;
      after = { noteId: last.note_id, ordinal: last.ordinal };
    }
  }
  return { incoming, truncated: false };
}

const bySourceThenLine = (a: IncomingLink, b: IncomingLink) =>
  a.sourcePath < b.sourcePath ? -1 : a.sourcePath > b.sourcePath ? 1 : a.line - b.line;

/** Bounds a deployment or a test may set; the defaults are the documented ones. */
export interface GraphOptions {
  /** Vaults whose link resolvers stay in memory (default RESOLVER_CACHE_VAULTS). */
  cachedVaults?: number;
  /** Most candidate links read per call while looking for incoming links (default MAX_INCOMING_CANDIDATES). */
  incomingCandidates?: number;
}

/** Builds the graph service, with its per-process cache of link resolvers. */
export function createGraphService(db: Database, vaults: VaultsService, options: GraphOptions = {}): GraphService {
  const resolvers = createResolverCache(db, options.cachedVaults ?? RESOLVER_CACHE_VAULTS);
  const candidates = options.incomingCandidates ?? MAX_INCOMING_CANDIDATES;
  return {
    async relations(actor, mappingId, request) {
      const canonical = normalizeNotePath(request.path);
      const limit = boundedLimit(request.limit);
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      assertReadableBodies(mapping);
      const { version, note } = await store.findNoteAndVersion(db, mapping.vaultId, notePathKey(canonical));
      if (!note) throw new KgateError('not_found', 'There is no note at this path.');
      const resolver = await resolvers.resolverFor(mapping.vaultId, version);
      const links = await store.listLinksOf(db, note.id);
      const out = outgoingOf(links, note.path, resolver, limit, await linkedFilesOf(db, mapping.vaultId, links, note.path));
      const key = notePathKey(note.path);
      const nameKeys = nameKeysOf(note.path);
      // A target that names a stored file names the file, not this note (as outgoing links resolve): [[photo.png]]
      // beside photo.png and photo.png.md is a link to the image.
      const files = await Promise.all(nameKeys.map((name) => fileNameResolver(db, mapping.vaultId, name)));
      const here = {
        nameKeys,
        excludeNoteId: note.id,
        resolvesHere: (target: string, sourcePath: string) =>
          files.every((file) => file(target, sourcePath) === undefined) && resolver.resolve(target, sourcePath)?.toLowerCase() === key,
      };
      const into = await incomingOf(db, mapping.vaultId, here, { limit, candidates });
      return {
        path: note.path,
        outgoing: out.outgoing,
        incoming: into.incoming.sort(bySourceThenLine),
        embeds: out.embeds,
        fileLinks: out.fileLinks,
        unresolved: out.unresolved,
        truncated: out.truncated || into.truncated,
      };
    },
    async fileIncoming(actor, mappingId, request) {
      const limit = boundedLimit(request.limit);
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      assertReadableBodies(mapping);
      const path = request.path.normalize('NFC');
      const file = await fileNameResolver(db, mapping.vaultId, path);
      const here = {
        nameKeys: [targetNameKey(path)],
        excludeNoteId: null,
        resolvesHere: (target: string, sourcePath: string) => file(target, sourcePath)?.toLowerCase() === path.toLowerCase(),
      };
      const into = await incomingOf(db, mapping.vaultId, here, { limit, candidates });
      return { incoming: into.incoming.sort(bySourceThenLine), truncated: into.truncated };
    },
  };
}
