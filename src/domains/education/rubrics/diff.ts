import { sameText, type RubricContent } from './contract.ts';

/**
 * What changed from one version of a rubric to the next, in words a teacher reads on the page: the title, the level
 * labels, criteria added and removed (matched by name, ignoring case and spacing), and for a criterion in both its
 * weight, reworded descriptors (by level) and standards. An empty list: the two versions say the same.
 */
export function describeRubricChanges(before: RubricContent, after: RubricContent): string[] {
  const changes: string[] = [];
  if (sameText(before.title) !== sameText(after.title)) changes.push(`Title changed from \u201c${before.title}\u201d to \u201c${after.title}\u201d.`);
  if (before.levelLabels.map(sameText).join('\u0000') !== after.levelLabels.map(sameText).join('\u0000')) {
    changes.push(`Level labels changed from ${before.levelLabels.join(', ')} to ${after.levelLabels.join(', ')}.`);
  }
  const old = new Map(before.criteria.map((c) => [sameText(c.name), c]));
  const now = new Map(after.criteria.map((c) => [sameText(c.name), c]));
  for (const [key, criterion] of now) if (!old.has(key)) changes.push(`Criterion added: ${criterion.name} (${criterion.weight}%).`);
  for (const [key, criterion] of old) if (!now.has(key)) changes.push(`Criterion removed: ${criterion.name} (${criterion.weight}%).`);
  for (const [key, criterion] of now) {
    const was = old.get(key);
    if (!was) continue;
    if (was.weight !== criterion.weight) changes.push(`${criterion.name}: weight changed from ${was.weight}% to ${criterion.weight}%.`);
    const wasByLevel = new Map(was.descriptors.map((d) => [sameText(d.level), sameText(d.text)]));
    const reworded = criterion.descriptors.filter((d) => wasByLevel.get(sameText(d.level)) !== sameText(d.text)).map((d) => d.level);
    if (reworded.length > 0) changes.push(`${criterion.name}: reworded at ${reworded.join(', ')}.`);
    const codes = (c: typeof criterion) => c.alignment.map((a) => a.code).sort().join(', ');
    if (codes(was) !== codes(criterion)) changes.push(`${criterion.name}: standards changed from ${codes(was)} to ${codes(criterion)}.`);
  }
  return changes;
}
