/**
 * The learner-specific language detector (docs/education.md, "The education context packet"): deterministic English
 * rules, no model, linear in the length of the text. It answers which rules a text breaks; callers refuse the input
 * (the service never redacts: a partial record with the name removed is still a record).
 */
import { findLearnerCounts } from './counts.ts';
import { findIdentifiers } from './identifiers.ts';
import { findPeople } from './people.ts';
import { recordFamilies } from './records.ts';
import { Findings, type LearnerLanguageRule } from './rules.ts';
import { normalizeText, tokenize } from './text.ts';

/**
 * The rules `text` breaks, each once, in LEARNER_LANGUAGE_RULES order; empty when it reads as class-level wording.
 * Time and memory are linear in the length of `text`; callers bound the length.
 */
export function findLearnerSpecificLanguage(text: string): LearnerLanguageRule[] {
  const normalized = normalizeText(text);
  const tokens = tokenize(normalized);
  const findings = new Findings();
  findIdentifiers(normalized, tokens, findings);
  findLearnerCounts(tokens, findings);
  findPeople(tokens, recordFamilies(tokens), findings);
  return findings.list();
}
