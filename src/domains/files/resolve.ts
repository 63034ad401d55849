import type { Sql } from '../../db/port.ts';
import { createLinkResolver, joinRelative } from '../markdown/index.ts';
import type { VaultFileSummary } from './contract.ts';
import { findResolutionCandidates } from './store.ts';

/*
 * Which stored canvas or attachment an embed (`![[image.png]]`, `![](img/a.png)`) or a link names, by the rules
 * notes follow (docs/markdown.md, "Link resolution"), which are Obsidian's: a target with a folder that matches a
 * path exactly is that file; `./` and `../` are relative to the note and `/` anchors at the vault root; otherwise
 * the files of that name are the candidates, the one in the note's own folder first, then the one with the fewest
 * folders, then the shortest path. The graph and the workspace both resolve through here.
 */

/** Most candidate files read for the targets of one note: names shared by more files than this are cut. */
export const MAX_RESOLVE_CANDIDATES = 5000;

const NON_ASCII = /[\u0080-\uffff]/;

/** A target as the resolver compares it: trimmed, NFC, lowercased. */
function targetKey(target: string): string {
  const trimmed = target.trim();
  return (NON_ASCII.test(trimmed) ? trimmed.normalize('NFC') : trimmed).toLowerCase();
}

/** The path keys a target may name exactly, and the file name its candidates by name share. */
function lookupKeys(target: string, sourcePath: string): { exact: string[]; name: string | null } {
  let key = targetKey(target);
  if (key === '') return { exact: [], name: null };
  if (key.startsWith('./') || key.startsWith('../')) {
    const source = targetKey(sourcePath);
    const joined = joinRelative(source.slice(0, Math.max(0, source.lastIndexOf('/'))), key);
    return { exact: joined === undefined || joined === '' ? [] : [joined], name: null };
  }
  if (key.startsWith('/')) {
    const anchored = key.replace(/^\/+/, '');
    return { exact: anchored === '' ? [] : [anchored], name: null };
  }
  while (key.endsWith('/')) key = key.slice(0, -1);
  if (key === '') return { exact: [], name: null };
  const slash = key.lastIndexOf('/');
  return { exact: slash === -1 ? [] : [key], name: key.slice(slash + 1) };
}

/**
 * The stored files the targets of one note's links resolve to, by target as written (the path part, without
 * `#...` or `|...`; Markdown link targets already URL-decoded). Targets that name no stored file are absent. One
 * query, whatever the number of targets; at most MAX_RESOLVE_CANDIDATES candidates are weighed.
 */
export async function resolveFileTargets(
  sql: Sql,
  vaultId: string,
  sourcePath: string,
  targets: Iterable<string>,
): Promise<Map<string, VaultFileSummary>> {
  const distinct = [...new Set(targets)];
  const exact = new Set<string>();
  const names = new Set<string>();
  for (const target of distinct) {
    const keys = lookupKeys(target, sourcePath);
    for (const key of keys.exact) exact.add(key);
    if (keys.name !== null) names.add(keys.name);
  }
  const resolved = new Map<string, VaultFileSummary>();
  if (exact.size === 0 && names.size === 0) return resolved;
  const rows = await findResolutionCandidates(sql, vaultId, [...exact], [...names], MAX_RESOLVE_CANDIDATES);
  if (rows.length === 0) return resolved;
  const byKey = new Map(rows.map((row) => [row.path.toLowerCase(), row]));
  const resolver = createLinkResolver(rows.map((row) => row.path));
  for (const target of distinct) {
    const path = resolver.resolve(target, sourcePath);
    const row = path === undefined || targetKey(target) === '' ? undefined : byKey.get(path.toLowerCase());
    if (row) resolved.set(target, row);
  }
  return resolved;
}

/**
 * Resolves, from any note, the link targets that name the file name of `filePath` (`spec.pdf`, `Docs/spec.pdf`,
 * `../Docs/spec.pdf`): with one read of the vault's files of that name, which are all such a target can name.
 * Answers the path of the file a target resolves to from its note, or undefined.
 */
export async function fileNameResolver(sql: Sql, vaultId: string, filePath: string): Promise<(target: string, sourcePath: string) => string | undefined> {
  const key = targetKey(filePath);
  const name = key.slice(key.lastIndexOf('/') + 1);
  const rows = await findResolutionCandidates(sql, vaultId, [], [name], MAX_RESOLVE_CANDIDATES);
  const resolver = createLinkResolver(rows.map((row) => row.path));
  return (target, sourcePath) => (targetKey(target) === '' ? undefined : resolver.resolve(target, sourcePath));
}

/** The one stored file a target resolves to from `sourcePath`, or undefined. */
export async function resolveFileTarget(sql: Sql, vaultId: string, sourcePath: string, target: string): Promise<VaultFileSummary | undefined> {
  return (await resolveFileTargets(sql, vaultId, sourcePath, [target])).get(target);
}
