/**
 * The cross-file rules of docs/packs.md "Validation", run once each file is valid on its own: duplicate ids,
 * evidence that points into the source texts, date order, supersession and insights. Every problem is collected.
 */
import { ASSERTIONS_FILE, INSIGHTS_FILE, MANIFEST_FILE, sourceFilePath } from './read-folder.ts';
import type { PackAssertion, PackInsight, PackManifest, PackSourceVersion } from './schema.ts';
import type { PackProblem } from './problems.ts';
import type { YamlFile, YamlPath } from './yaml-file.ts';

/** What the cross-file rules look at: the valid files, their located documents and the source texts read. */
export interface PackValidationInput {
  manifest: PackManifest;
  assertions: PackAssertion[];
  insights: PackInsight[];
  manifestYaml: YamlFile;
  assertionsYaml: YamlFile;
  insightsYaml: YamlFile | undefined;
  sourceTexts: ReadonlyMap<string, string>;
}

/** Collapses runs of whitespace to one space and trims, so a quote may wrap differently from its lines. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The lines of a text; a final line break does not start another line. */
function linesOf(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Reports the second and later occurrences of each id. */
function duplicates(ids: readonly string[], report: (index: number, id: string) => void): void {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) report(index, id);
    seen.add(id);
  });
}

/** Applies every cross-file rule and returns all problems found (unsorted). */
export function validatePack(input: PackValidationInput): PackProblem[] {
  const problems: PackProblem[] = [];
  const at = (yaml: YamlFile | undefined, file: string, path: YamlPath, message: string): void => {
    problems.push({ file, line: yaml ? yaml.lineAt(path) : 1, message });
  };
  const inManifest = (path: YamlPath, message: string) => at(input.manifestYaml, MANIFEST_FILE, path, message);
  const inAssertions = (path: YamlPath, message: string) => at(input.assertionsYaml, ASSERTIONS_FILE, path, message);
  const inInsights = (path: YamlPath, message: string) => at(input.insightsYaml, INSIGHTS_FILE, path, message);

  // Duplicate ids.
  const { sources } = input.manifest;
  duplicates(sources.map((source) => source.id), (s, id) => inManifest(['sources', s, 'id'], `duplicate source id "${id}"`));
  sources.forEach((source, s) =>
    duplicates(source.versions.map((version) => version.version), (v, version) =>
      inManifest(['sources', s, 'versions', v, 'version'], `duplicate version "${version}" of source "${source.id}"`),
    ),
  );
  duplicates(input.assertions.map((a) => a.id), (i, id) => inAssertions([i, 'id'], `duplicate assertion id "${id}"`));
  duplicates(input.insights.map((insight) => insight.id), (i, id) => inInsights([i, 'id'], `duplicate insight id "${id}"`));

  // Evidence, and accepted dates against the cited versions' reporting dates.
  const versions = new Map<string, Map<string, PackSourceVersion>>();
  for (const source of sources) {
    const byLabel = versions.get(source.id) ?? new Map<string, PackSourceVersion>();
    for (const version of source.versions) if (!byLabel.has(version.version)) byLabel.set(version.version, version);
    versions.set(source.id, byLabel);
  }
  input.assertions.forEach((assertion, a) => {
    assertion.evidence.forEach((evidence, e) => {
      const path = [a, 'evidence', e];
      const byLabel = versions.get(evidence.source);
      if (!byLabel) return inAssertions([...path, 'source'], `evidence names an unknown source "${evidence.source}"`);
      const version = byLabel.get(evidence.version);
      if (!version) {
        return inAssertions([...path, 'version'], `evidence names an unknown version "${evidence.version}" of source "${evidence.source}"`);
      }
      if (assertion.accepted < version.reported) {
        inAssertions([a, 'accepted'], `accepted ${assertion.accepted}, before ${evidence.source} ${evidence.version} was reported (${version.reported})`);
      }
      const text = input.sourceTexts.get(sourceFilePath(evidence.source, evidence.version));
      if (text === undefined) return; // The unreadable file is already a problem of its own.
      const lines = linesOf(text);
      const [first, last] = evidence.lines;
      if (first > last || last > lines.length) {
        return inAssertions([...path, 'lines'], `lines [${first}, ${last}] are outside ${sourceFilePath(evidence.source, evidence.version)} (${lines.length} lines)`);
      }
      if (normalizeWhitespace(lines.slice(first - 1, last).join(' ')) !== normalizeWhitespace(evidence.quote)) {
        inAssertions([...path, 'quote'], `the quote does not match lines ${first}-${last} of ${sourceFilePath(evidence.source, evidence.version)}`);
      }
    });
    if (assertion.retracted !== undefined && assertion.retracted < assertion.accepted) {
      inAssertions([a, 'retracted'], `retracted ${assertion.retracted}, before it was accepted (${assertion.accepted})`);
    }
  });

  // Supersession: known ids, no cycles.
  const assertionsById = new Map<string, PackAssertion>();
  for (const assertion of input.assertions) if (!assertionsById.has(assertion.id)) assertionsById.set(assertion.id, assertion);
  const reachesItself = (start: string): boolean => {
    const stack = [...(assertionsById.get(start)?.supersedes ?? [])];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === start) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(assertionsById.get(next)?.supersedes ?? []));
    }
    return false;
  };
  input.assertions.forEach((assertion, a) => {
    (assertion.supersedes ?? []).forEach((id, s) => {
      if (!assertionsById.has(id)) inAssertions([a, 'supersedes', s], `supersedes an unknown assertion "${id}"`);
    });
    if (assertion.supersedes?.length && reachesItself(assertion.id)) {
      inAssertions([a, 'supersedes'], `"${assertion.id}" supersedes itself through a cycle`);
    }
  });

  // Insights.
  input.insights.forEach((insight, i) => {
    insight.derivedFrom.forEach((id, d) => {
      const assertion = assertionsById.get(id);
      if (!assertion) return inInsights([i, 'derivedFrom', d], `derived from an unknown assertion "${id}"`);
      if (insight.availableFrom < assertion.accepted) {
        inInsights([i, 'availableFrom'], `available from ${insight.availableFrom}, before "${id}" was accepted (${assertion.accepted})`);
      }
    });
  });
  return problems;
}
