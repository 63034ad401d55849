/**
 * Reads a pack folder (docs/packs.md "The folder"): the three YAML files and the source version texts the manifest
 * names. Bounded and confined: every file is at most 1 MiB of UTF-8, and the only paths read are built from names
 * that cannot leave the folder.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { parseYamlFile } from './yaml-file.ts';
import type { YamlFile } from './yaml-file.ts';
import type { PackProblem } from './problems.ts';

/** The largest source version text, in bytes (docs/packs.md). */
export const MAX_PACK_FILE_BYTES = 1024 * 1024;
/**
 * The largest YAML file, in bytes. docs/packs.md bounds source texts at 1 MiB but allows 5,000 sources and 50,000
 * assertions, which do not fit in 1 MiB of YAML (the benchmark's generated pack.yaml alone is larger): the YAML files
 * get a bound of their own, still finite.
 */
export const MAX_PACK_YAML_BYTES = 64 * 1024 * 1024;
/** A source id or version label: a simple name, so that `sources/<id>/<version>.md` stays inside the folder. */
export const SIMPLE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export const MANIFEST_FILE = 'pack.yaml';
export const ASSERTIONS_FILE = 'assertions.yaml';
export const INSIGHTS_FILE = 'insights.yaml';

/** The path, relative to the pack folder, of a source version's text. */
export function sourceFilePath(sourceId: string, version: string): string {
  return `sources/${sourceId}/${version}.md`;
}

/** What a pack folder holds, read but not validated; `problems` are the files that could not be read. */
export interface PackFiles {
  manifest: YamlFile | undefined;
  assertions: YamlFile | undefined;
  /** Undefined when the folder has no insights.yaml (it is optional). */
  insights: YamlFile | undefined;
  /** Source version texts by `sourceFilePath`, for the versions whose file was read. */
  sourceTexts: Map<string, string>;
  problems: PackProblem[];
}

type ReadResult = { ok: true; text: string } | { ok: false; missing: boolean; message: string };

/**
 * Reads one file of the folder: refuses a missing file, one that resolves outside the folder (a symbolic link out),
 * one over `maxBytes` and one that is not UTF-8.
 */
async function readBoundedText(dir: string, relative: string, maxBytes: number): Promise<ReadResult> {
  let size: number;
  let path: string;
  try {
    const [root, resolved] = await Promise.all([realpath(dir), realpath(join(dir, relative))]);
    if (!resolved.startsWith(root + sep)) return { ok: false, missing: false, message: 'resolves outside the pack folder' };
    path = resolved;
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, missing: true, message: 'is not a file' };
    size = info.size;
  } catch {
    return { ok: false, missing: true, message: 'is missing' };
  }
  if (size > maxBytes) return { ok: false, missing: false, message: `is larger than ${maxBytes} bytes` };
  const bytes = await readFile(path);
  // Checked again on the bytes read: the file may have grown between stat and read.
  if (bytes.byteLength > maxBytes) return { ok: false, missing: false, message: `is larger than ${maxBytes} bytes` };
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, missing: false, message: 'is not UTF-8' };
  }
}

/** Reads a YAML file of the folder into a located document, or records why it could not be read. */
async function readYaml(dir: string, file: string, optional: boolean, problems: PackProblem[]): Promise<YamlFile | undefined> {
  const read = await readBoundedText(dir, file, MAX_PACK_YAML_BYTES);
  if (read.ok) return parseYamlFile(file, read.text);
  if (!(optional && read.missing)) problems.push({ file, line: 1, message: `${file} ${read.message}` });
  return undefined;
}

/** The source versions the manifest names, read loosely (parse.ts validates the manifest itself), with their lines. */
function namedSourceVersions(manifest: YamlFile): { sourceId: string; version: string; line: number }[] {
  const named: { sourceId: string; version: string; line: number }[] = [];
  const sources: unknown = manifest.value && typeof manifest.value === 'object' ? (manifest.value as Record<string, unknown>).sources : undefined;
  if (!Array.isArray(sources)) return named;
  sources.forEach((source: unknown, s) => {
    if (!source || typeof source !== 'object') return;
    const { id, versions } = source as Record<string, unknown>;
    if (typeof id !== 'string' || !SIMPLE_NAME.test(id) || !Array.isArray(versions)) return;
    versions.forEach((entry: unknown, v) => {
      const version = entry && typeof entry === 'object' ? (entry as Record<string, unknown>).version : undefined;
      if (typeof version !== 'string' || !SIMPLE_NAME.test(version)) return;
      named.push({ sourceId: id, version, line: manifest.lineAt(['sources', s, 'versions', v, 'version']) });
    });
  });
  return named;
}

/**
 * Reads the folder `dir`. Never throws for what the folder holds: a missing or unreadable file is a problem naming
 * it. Source versions whose id or label is not a simple name are not read (parse.ts reports the name).
 */
export async function readPackFolder(dir: string): Promise<PackFiles> {
  const problems: PackProblem[] = [];
  const manifest = await readYaml(dir, MANIFEST_FILE, false, problems);
  const assertions = await readYaml(dir, ASSERTIONS_FILE, false, problems);
  const insights = await readYaml(dir, INSIGHTS_FILE, true, problems);
  const sourceTexts = new Map<string, string>();
  for (const named of manifest ? namedSourceVersions(manifest) : []) {
    const path = sourceFilePath(named.sourceId, named.version);
    if (sourceTexts.has(path)) continue;
    const read = await readBoundedText(dir, path, MAX_PACK_FILE_BYTES);
    if (read.ok) sourceTexts.set(path, read.text);
    else if (read.missing) problems.push({ file: MANIFEST_FILE, line: named.line, message: `the text of this source version, ${path}, ${read.message}` });
    else problems.push({ file: path, line: 1, message: `${path} ${read.message}` });
  }
  return { manifest, assertions, insights, sourceTexts, problems };
}
