/**
 * Person rules: where a sentence points at one learner (a name, a gendered pronoun, `the student`, `Student A`), and
 * what that makes of the record terms in the same sentence. Sentences are independent: a name in one sentence and
 * `IEPs` in the next are not tied.
 */
import { AMBIGUOUS_GIVEN_NAMES, GIVEN_NAMES } from './given-names.ts';
import {
  ADULT_ROLES,
  ATTRIBUTIVE_AFTER,
  DAYS,
  GENDERED_PRONOUNS,
  KNOWN_CAPITALIZED,
  LEARNER_PLURAL,
  LEARNER_SINGULAR,
  MONTHS,
  NAMING_WORDS,
  QUANTIFIERS,
  RECORD_POSSESSIONS,
  RECORD_VERBS,
  SINGULAR_DETERMINERS,
  SINGULAR_SUBJECT_VERBS,
  SUBJECTLESS_OPENERS,
  type RecordFamily,
} from './lexicon.ts';
import type { Findings, LearnerLanguageRule } from './rules.ts';
import type { Token } from './text.ts';

const FAMILY_RULES: Record<RecordFamily, LearnerLanguageRule> = {
  plan_or_diagnosis: 'individual_plan_or_diagnosis',
  result: 'individual_result',
  circumstance: 'individual_circumstance',
};

const PRONOUN_PAIRS = new Set(['or', '/']);

/** One sentence: its tokens, and the record family each token starts. */
interface Sentence {
  tokens: Token[];
  families: (RecordFamily | undefined)[];
}

const isGenderedPronoun = (token: Token | undefined): boolean => token?.kind === 'word' && GENDERED_PRONOUNS.has(token.lower);

/** `he or she`, `his/her`, `s/he`: the generic pairs that stand for anyone. */
function isGenericPronoun(tokens: Token[], i: number): boolean {
  const next = tokens[i + 1];
  const previous = tokens[i - 1];
  if (next && PRONOUN_PAIRS.has(next.lower) && isGenderedPronoun(tokens[i + 2])) return true;
  if (previous && PRONOUN_PAIRS.has(previous.lower)) {
    const before = tokens[i - 2];
    if (isGenderedPronoun(before) || (previous.text === '/' && before?.lower === 's')) return true;
  }
  return false;
}

function isLearnerNoun(token: Token | undefined): boolean {
  return token?.kind === 'word' && (LEARNER_SINGULAR.has(token.lower) || LEARNER_PLURAL.has(token.lower));
}

/** A capitalized word that is not a known word, a month or day, a record term, or a given name that is only a name. */
function isUnknownCapitalized(token: Token | undefined, family: RecordFamily | undefined): boolean {
  if (!token || token.kind !== 'word' || !token.capitalized || family) return false;
  const lower = token.lower;
  const knownName = GIVEN_NAMES.has(lower) && !AMBIGUOUS_GIVEN_NAMES.has(lower);
  return !KNOWN_CAPITALIZED.has(lower) && !MONTHS.has(lower) && !DAYS.has(lower) && !knownName && !isLearnerNoun(token);
}

/** `student Jake`, `Student A`, `student #12`, `student 12`, `a boy named ...`, `students Maria and Jake`. */
function isLearnerLabel(s: Sentence, i: number): boolean {
  const noun = s.tokens[i]!;
  if (!isLearnerNoun(noun) || noun.possessive) return false;
  const next = s.tokens[i + 1];
  const after = s.tokens[i + 2];
  if (!next || ATTRIBUTIVE_AFTER.has(next.lower)) return false;
  const singular = LEARNER_SINGULAR.has(noun.lower);
  if (next.kind === 'word' && NAMING_WORDS.has(next.lower)) return true;
  if (next.kind === 'word' && next.text.length === 1 && /^[A-HJ-Z]$/.test(next.text)) return true; // not `I`
  if (next.text === '#' && after?.kind === 'number') return true;
  if (singular && next.kind === 'number' && !(after && !after.spaceBefore && [':', '%', '/', '-'].includes(after.text))) return true;
  if (next.kind === 'word' && next.capitalized && GIVEN_NAMES.has(next.lower)) return true;
  return singular && isUnknownCapitalized(next, s.families[i + 1]);
}

/** A given name the detector knows, used as a name here (ambiguous names need more evidence). */
function isName(s: Sentence, i: number): boolean {
  const token = s.tokens[i]!;
  if (token.kind !== 'word' || !token.capitalized || !GIVEN_NAMES.has(token.lower)) return false;
  if (!AMBIGUOUS_GIVEN_NAMES.has(token.lower)) return true;
  const next = s.tokens[i + 1];
  if (isLearnerNoun(s.tokens[i - 1])) return true;
  if (token.possessive) return next?.kind === 'word' && RECORD_POSSESSIONS.has(next.lower);
  if (next?.kind === 'word' && next.capitalized && !KNOWN_CAPITALIZED.has(next.lower) && !s.families[i + 1]) return true; // a surname
  return !token.sentenceStart && next?.kind === 'word' && RECORD_VERBS.has(next.lower);
}

/** A name followed by a record verb (`Maria has`, `Jake Smith failed`), or a name's record (`Maria's IEP`). */
function isNamedRecord(s: Sentence, i: number): boolean {
  const token = s.tokens[i]!;
  let next = s.tokens[i + 1];
  if (token.possessive) return next?.kind === 'word' && RECORD_POSSESSIONS.has(next.lower);
  if (next?.kind === 'word' && next.capitalized && !RECORD_VERBS.has(next.lower)) {
    if (next.possessive) return s.tokens[i + 2]?.kind === 'word' && RECORD_POSSESSIONS.has(s.tokens[i + 2]!.lower);
    next = s.tokens[i + 2]; // a surname
  }
  return next?.kind === 'word' && RECORD_VERBS.has(next.lower);
}

/** `the student`, `a new student`, `this particular learner`, `one student`: one learner, not every learner. */
function isSingularLearner(s: Sentence, i: number): boolean {
  const noun = s.tokens[i]!;
  if (!LEARNER_SINGULAR.has(noun.lower)) return false;
  const next = s.tokens[i + 1];
  if (next && ((next.text === '-' && !next.spaceBefore) || (!noun.possessive && next.kind === 'word' && ATTRIBUTIVE_AFTER.has(next.lower)))) {
    return false;
  }
  for (let k = i - 1; k >= 0 && k >= i - 3; k -= 1) {
    const token = s.tokens[k]!;
    if (token.kind === 'word' && SINGULAR_DETERMINERS.has(token.lower)) return true;
    if (token.kind !== 'word' && token.text !== '-') return false;
    if (QUANTIFIERS.has(token.lower) || isLearnerNoun(token)) return false;
  }
  return false;
}

/** An unknown name as a subject: `and Xochitl has an IEP`, or at a sentence's start before `has` and a plan term. */
function isCapitalizedSubject(s: Sentence, i: number): boolean {
  const token = s.tokens[i]!;
  const next = s.tokens[i + 1];
  if (!isUnknownCapitalized(token, s.families[i]) || token.allCaps || next?.kind !== 'word') return false;
  if (!token.sentenceStart) return SINGULAR_SUBJECT_VERBS.has(next.lower);
  if (!['has', 'had', 'is', 'was'].includes(next.lower)) return false;
  return s.families.slice(i + 2, i + 5).includes('plan_or_diagnosis');
}

/** `Has an IEP.`, `Struggles with decoding; reads below grade level.`: a clipped note about one learner. */
function isSubjectlessRecord(s: Sentence): boolean {
  const first = s.tokens.find((token) => token.kind !== 'punct');
  if (!first || !first.capitalized || !SUBJECTLESS_OPENERS.has(first.lower)) return false;
  if (s.tokens.some((token) => token.text === '?' || (token.kind === 'word' && LEARNER_PLURAL.has(token.lower)))) return false;
  return s.families.some((family) => family === 'plan_or_diagnosis' || family === 'result');
}

/** Runs the person rules over one sentence. */
function findInSentence(s: Sentence, findings: Findings): void {
  let person = isSubjectlessRecord(s);
  let adultSeen = false;
  const pronouns: boolean[] = [];
  for (let i = 0; i < s.tokens.length; i += 1) {
    const token = s.tokens[i]!;
    if (token.kind === 'word' && ADULT_ROLES.has(token.lower)) adultSeen = true;
    if (isGenderedPronoun(token) && !isGenericPronoun(s.tokens, i)) {
      pronouns.push(adultSeen);
      person = true;
    }
    if (isLearnerLabel(s, i)) {
      findings.add('named_learner');
      person = true;
    }
    if (isName(s, i)) {
      person = true;
      if (isNamedRecord(s, i)) findings.add('named_learner');
    }
    if (isSingularLearner(s, i) || isCapitalizedSubject(s, i)) person = true;
  }
  const families = new Set(s.families.filter((family) => family !== undefined));
  // A pronoun after an adult role (`the co-teacher ... she`) may be the adult's, unless the sentence holds a record.
  if (pronouns.some((afterAdult) => !afterAdult || families.size > 0)) findings.add('gendered_pronoun');
  if (!person) return;
  for (const family of families) findings.add(FAMILY_RULES[family]);
}

/** Runs the person rules over every sentence of the tokens. */
export function findPeople(tokens: Token[], families: (RecordFamily | undefined)[], findings: Findings): void {
  let start = 0;
  for (let i = 0; i <= tokens.length; i += 1) {
    if (i < tokens.length && tokens[i]!.sentence === tokens[start]!.sentence) continue;
    if (i > start) findInSentence({ tokens: tokens.slice(start, i), families: families.slice(start, i) }, findings);
    start = i;
  }
}
