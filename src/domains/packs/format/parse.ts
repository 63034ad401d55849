/**
 * Validates each YAML file of a pack on its own against its schema, mapping every zod issue to the file and line of
 * the YAML node it is about.
 */
import type { z } from 'zod';
import type { PackFiles } from './read-folder.ts';
import { assertionsSchema, insightsSchema, manifestSchema } from './schema.ts';
import type { PackAssertion, PackInsight, PackManifest } from './schema.ts';
import type { PackProblem } from './problems.ts';
import type { YamlFile } from './yaml-file.ts';

/** The three files, each validated on its own; a file that did not validate is undefined and has problems. */
export interface ParsedPackFiles {
  manifest: PackManifest | undefined;
  assertions: PackAssertion[] | undefined;
  insights: PackInsight[] | undefined;
  problems: PackProblem[];
}

/** One problem per zod issue, at the line of the node (or, for an unknown field, of the key) it is about. */
function issueProblems(yaml: YamlFile, issues: readonly z.core.$ZodIssue[]): PackProblem[] {
  const problems: PackProblem[] = [];
  for (const issue of issues) {
    const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ file: yaml.file, line: yaml.keyLineAt(issue.path, key), message: `${where}unknown field "${key}"` });
      }
    } else {
      const missing = issue.code === 'invalid_type' && issue.input === undefined;
      problems.push({ file: yaml.file, line: yaml.lineAt(issue.path), message: `${where}${missing ? 'missing field' : issue.message}` });
    }
  }
  return problems;
}

function validateFile<T>(yaml: YamlFile, schema: z.ZodType<T>, problems: PackProblem[]): T | undefined {
  problems.push(...yaml.problems);
  if (yaml.problems.length > 0) return undefined;
  const result = schema.safeParse(yaml.value);
  if (result.success) return result.data;
  problems.push(...issueProblems(yaml, result.error.issues));
  return undefined;
}

/** Validates the files `readPackFolder` read. An absent insights.yaml is an empty list of insights. */
export function parsePackFiles(files: PackFiles): ParsedPackFiles {
  const problems: PackProblem[] = [];
  const manifest = files.manifest ? validateFile(files.manifest, manifestSchema, problems) : undefined;
  const assertions = files.assertions ? validateFile(files.assertions, assertionsSchema, problems) : undefined;
  const insights = files.insights ? validateFile(files.insights, insightsSchema, problems) : [];
  return { manifest, assertions, insights, problems };
}
