/**
 * The review rationale of a candidate: one sentence per signal, made from the signals alone (codes, numbers,
 * grade and subject labels, identifiers), so no statement text can be in it.
 */
import type { CrosswalkSignals } from './contract.ts';

const percent = (share: number) => `${Math.round(share * 100)}%`;
const list = (labels: readonly string[]) => labels.join(', ');

function codeSentence(code: CrosswalkSignals['code']): string {
  switch (code.match) {
    case 'exact':
      return `Codes match after normalization (${code.normalizedSource}).`;
    case 'suffix':
      return `One code ends with the other (${code.normalizedSource} and ${code.normalizedTarget}): the same code under a publisher prefix.`;
    case 'partial':
      return `Codes align in part (${code.normalizedSource} and ${code.normalizedTarget}) and end alike.`;
    case 'different':
      return `Codes differ (${code.normalizedSource} and ${code.normalizedTarget}).`;
    case 'missing':
      return 'At least one item has no code; codes were not compared.';
  }
}

function gradeSentence(grades: CrosswalkSignals['grades']): string {
  switch (grades.match) {
    case 'same':
      return `Same grade levels (${list(grades.source)}).`;
    case 'overlap':
      return `Grade levels overlap (${list(grades.source)} and ${list(grades.target)}).`;
    case 'adjacent':
      return `Grade levels are adjacent (${list(grades.source)} and ${list(grades.target)}): check the progression.`;
    case 'disjoint':
      return `Grade levels differ (${list(grades.source)} and ${list(grades.target)}).`;
    case 'unknown':
      return 'Grade levels are not given for both items.';
  }
}

function subjectSentence(subjects: CrosswalkSignals['subjects']): string {
  if (subjects.match === 'same') return `Same subject (${list(subjects.source.filter((s) => subjects.target.includes(s)))}).`;
  if (subjects.match === 'different') return `Subjects differ (${list(subjects.source)} and ${list(subjects.target)}).`;
  return 'Subjects are not given for both items.';
}

function domainSentence(domain: CrosswalkSignals['domain']): string {
  const name = (anchor: CrosswalkSignals['domain']['source']) => anchor?.code ?? anchor?.identifier ?? 'unnamed';
  switch (domain.match) {
    case 'same':
      return `Same domain (${name(domain.source)}).`;
    case 'similar':
      return `Their domains (${name(domain.source)} and ${name(domain.target)}) are described alike (${percent(domain.score)}).`;
    case 'different':
      return `Domains differ (${name(domain.source)} and ${name(domain.target)}).`;
    case 'unknown':
      return 'No domain is known for both items.';
  }
}

/** The sentences of a candidate's rationale, ending with what the reviewer must do. */
export function rationaleOf(signals: CrosswalkSignals): string[] {
  const sentences: string[] = [];
  if (signals.framework.sameItemIdentifier) sentences.push('The same CASE item identifier is in both slices.');
  if (signals.framework.declared !== null) sentences.push(`A CFAssociation of the slices already declares ${signals.framework.declared} between them.`);
  sentences.push(
    `Statements share ${signals.statement.sharedTerms} terms, ${percent(signals.statement.similarity)} similar by weighted terms.`,
    codeSentence(signals.code),
    gradeSentence(signals.grades),
    subjectSentence(signals.subjects),
    domainSentence(signals.domain),
    'Proposal only: read both statements in their frameworks before recording an association.',
  );
  return sentences;
}
