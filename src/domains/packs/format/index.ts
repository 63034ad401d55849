/**
 * The pack format (docs/packs.md), engine-free: reads a pack folder, validates it and answers either the parsed pack
 * or every problem, each naming its file and line. Nothing here touches a database.
 */
import { parsePackFiles } from './parse.ts';
import { sortProblems } from './problems.ts';
import type { PackProblem } from './problems.ts';
import { readPackFolder, sourceFilePath } from './read-folder.ts';
import type { PackAssertion, PackInsight, PackManifest, PackSource, PackSourceVersion } from './schema.ts';
import { validatePack } from './validate.ts';

export type { PackProblem } from './problems.ts';
export { MAX_PACK_FILE_BYTES, MAX_PACK_YAML_BYTES, SIMPLE_NAME, readPackFolder, sourceFilePath } from './read-folder.ts';
export type { PackFiles } from './read-folder.ts';
export { PACK_LIMITS, isCalendarDate, isCredentialFreeHttpsUrl } from './schema.ts';
export type { PackAssertion, PackEvidence, PackInsight, PackManifest, PackSource, PackSourceVersion } from './schema.ts';
export { normalizeWhitespace } from './validate.ts';

/** A source version with its text. */
export type ParsedSourceVersion = PackSourceVersion & { text: string };
/** A source with its versions' texts. */
export type ParsedSource = Omit<PackSource, 'versions'> & { versions: ParsedSourceVersion[] };
/** A valid pack: the manifest's fields, its sources with their texts, its assertions and insights. */
export type ParsedPack = Omit<PackManifest, 'sources'> & {
  sources: ParsedSource[];
  assertions: PackAssertion[];
  insights: PackInsight[];
};

/** Reads and validates the pack folder `dir`; refuses with all problems, sorted by file then line. */
export async function loadPack(dir: string): Promise<{ ok: true; pack: ParsedPack } | { ok: false; problems: PackProblem[] }> {
  const files = await readPackFolder(dir);
  const parsed = parsePackFiles(files);
  const problems = [...files.problems, ...parsed.problems];
  const { manifest, assertions, insights } = parsed;
  if (manifest && assertions && insights && files.manifest && files.assertions) {
    problems.push(
      ...validatePack({
        manifest,
        assertions,
        insights,
        manifestYaml: files.manifest,
        assertionsYaml: files.assertions,
        insightsYaml: files.insights,
        sourceTexts: files.sourceTexts,
      }),
    );
  }
  if (problems.length > 0 || !manifest || !assertions || !insights) return { ok: false, problems: sortProblems(problems) };
  const sources = manifest.sources.map((source) => ({
    ...source,
    versions: source.versions.map((version) => ({ ...version, text: files.sourceTexts.get(sourceFilePath(source.id, version.version)) ?? '' })),
  }));
  return { ok: true, pack: { ...manifest, sources, assertions, insights } };
}
