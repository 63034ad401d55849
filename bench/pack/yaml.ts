/**
 * The generated pack's YAML files (docs/packs.md), written by hand in the example pack's layout: strings as JSON
 * strings (valid double-quoted YAML scalars), so a version label like "2019" stays a string, and dates unquoted.
 */
import type { GeneratedAssertion, GeneratedInsight, GeneratedPack } from './model.ts';

const q = (text: string): string => JSON.stringify(text);

/** pack.yaml. */
export function manifestYaml(pack: GeneratedPack): string {
  const out = [
    '# A generated pack of invented standards and guidance (bench/pack-generator.ts); format: docs/packs.md.',
    'pack: 1',
    `product: ${pack.product}`,
    `slug: ${pack.slug}`,
    `title: ${q(pack.title)}`,
    'sources:',
  ];
  for (const source of pack.sources) {
    out.push(`  - id: ${source.id}`, `    title: ${q(source.title)}`, `    citation: ${source.citation}`, '    versions:');
    for (const v of source.versions) {
      out.push(`      - version: ${q(v.label)}`, `        published: ${v.published}`, `        reported: ${v.reported}`, `        extraction: ${v.extraction}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** assertions.yaml. */
export function assertionsYaml(assertions: readonly GeneratedAssertion[]): string {
  const out = ['# Accepted assertions of the generated pack; each quote is the exact text of the cited lines.'];
  for (const a of assertions) {
    out.push(`- id: ${a.id}`, `  statement: ${q(a.statement)}`, `  accepted: ${a.accepted}`);
    if (a.retracted !== undefined) out.push(`  retracted: ${a.retracted}`);
    if (a.supersedes.length > 0) out.push(`  supersedes: [${a.supersedes.join(', ')}]`);
    out.push('  evidence:');
    for (const e of a.evidence) {
      out.push(`    - source: ${e.source}`, `      version: ${q(e.version)}`, `      lines: [${e.lines[0]}, ${e.lines[1]}]`, `      quote: ${q(e.quote)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** insights.yaml. */
export function insightsYaml(insights: readonly GeneratedInsight[]): string {
  const out = ['# Derived insights of the generated pack.'];
  for (const insight of insights) {
    out.push(
      `- id: ${insight.id}`,
      `  statement: ${q(insight.statement)}`,
      `  availableFrom: ${insight.availableFrom}`,
      `  derivedFrom: [${insight.derivedFrom.join(', ')}]`,
    );
  }
  return `${out.join('\n')}\n`;
}
