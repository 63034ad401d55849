/**
 * The English word lists of the learner-specific language detector (docs/education.md lists what each one is for).
 * All entries are lower case; multi-word entries are written with single spaces and matched token by token.
 */

const words = (list: string): ReadonlySet<string> => new Set(list.trim().split(/\s+/));

/** Nouns for one learner. */
export const LEARNER_SINGULAR = words(`
  student learner pupil child kid boy girl son daughter teen teenager youngster kiddo newcomer classmate scholar
`);

/** Nouns for several learners. */
export const LEARNER_PLURAL = words(`
  students learners pupils children kids boys girls sons daughters teens teenagers youngsters kiddos newcomers
  classmates scholars
`);

/** Words that, before a singular learner noun (with up to two words between), make it one particular learner. */
export const SINGULAR_DETERMINERS = words(`the a an this that one my our your another said same particular certain single lone`);

/** Third-person singular pronouns that carry a gender: in class-level text they point at one person. */
export const GENDERED_PRONOUNS = words(`he she him his her hers himself herself`);

/** Adults whose mention before a pronoun, in a sentence with no record term, lets the pronoun be theirs. */
export const ADULT_ROLES = words(`
  teacher teachers co-teacher coteacher aide para paraprofessional paraeducator specialist interpreter counselor
  counsellor principal coach librarian tutor instructor educator volunteer nurse mr mrs ms mx dr professor
`);

/**
 * Count words of the learner-count rule, with their value. `couple` and `pair` count as two (`a couple of students`);
 * vague words (`few`, `handful`) are not counts.
 */
export const COUNT_WORDS: ReadonlyMap<string, number> = new Map([
  ['one', 1], ['single', 1], ['lone', 1], ['sole', 1], ['two', 2], ['both', 2], ['couple', 2], ['pair', 2],
  ['three', 3], ['four', 4], ['five', 5], ['six', 6], ['seven', 7], ['eight', 8], ['nine', 9], ['ten', 10],
  ['eleven', 11], ['twelve', 12], ['dozen', 12], ['twenty', 20], ['thirty', 30], ['forty', 40], ['fifty', 50],
]);

/** Tens words: `twenty-one` is twenty-one, not one. */
export const TENS_WORDS = words(`twenty thirty forty fifty sixty seventy eighty ninety`);

/** A number right after one of these names something else: `grade 2 students`, `Tier 2 students`, `K-2 learners`. */
export const NUMBER_LABELS = words(`
  grade grades year years yr level levels period periods unit units chapter chapters room rooms section sections
  class classes group groups table tables station stations week weeks day days lesson lessons module modules page
  pages set sets team teams cohort cohorts block blocks track tracks tier tiers age ages k ks key stage p form
  standard standards lab labs session sessions round rounds step steps part parts number no # homeroom
`);

/** `groups of 4 students`, `pairs of two learners`: a count after one of these and `of` is a group's size, not a group. */
export const GROUPING_NOUNS = words(`
  group groups pair pairs team teams table tables set sets trio trios triad triads cluster clusters pod pods
  partner partners rotation rotations station stations circle circles squad squads quad quads
`);

/** `one student at a time`, `two students per device`, `2 students to a table`: distributive, not a group. */
export const DISTRIBUTIVE_BEFORE = words(`per every each in`);

/** Words after a learner noun that introduce a name (`a boy named ...`). */
export const NAMING_WORDS = words(`named called`);

/** Verbs that, right after a name, make the name the subject of a record-like statement (`Maria has ...`). */
export const RECORD_VERBS = words(`
  has had is was needs needed struggles struggled scored scores failed fails missed misses got gets earned receives
  received qualifies qualified reads cannot can't couldn't doesn't didn't won't wouldn't isn't wasn't refuses refused
  requires required uses takes took tested lacks avoids attends attended transferred moved joined arrived left speaks
  tends continues seems appears will would should must might can could does did sits works worked behaves acts talks
  hits skipped skips sleeps forgets forgot loses lost comes came goes went lives lived stays
`);

/** Nouns after a name's possessive that make it a record (`Maria's IEP`, `Jake's grades`). */
export const RECORD_POSSESSIONS = words(`
  iep plan grade grades score scores reading writing behavior behaviour attendance diagnosis parents parent mom
  mother dad father family guardian accommodations accommodation test tests level progress work essay mark marks
  results report record file case caseworker aide therapist counselor counsellor absences needs disability
  medication
`);

/** Verbs of a singular subject, used to take an unknown capitalized word before them as a person (docs/education.md). */
export const SINGULAR_SUBJECT_VERBS = words(`
  has had is was needs gets got receives received qualifies reads struggles scored failed missed takes uses requires
  attends lives
`);

/** The record-term families: which rule a record term reports when it is tied to a person. */
export type RecordFamily = 'plan_or_diagnosis' | 'result' | 'circumstance';

/** Plans, diagnoses, health and individual accommodations. */
const PLAN_OR_DIAGNOSIS = `
  iep ieps ihp bip fba ehcp sped accommodation accommodations diagnosis diagnoses diagnosed disability disabilities
  disabled disorder syndrome impairment impaired adhd autism autistic aspergers asperger dyslexia dyslexic dyscalculia
  dysgraphia dyspraxia apraxia epilepsy epileptic seizure seizures diabetes diabetic asthma asthmatic allergy allergies
  allergic anxiety depression depressed ptsd ocd bipolar medication medications medicated meds therapy therapist
  counseling counselling psychologist psychiatrist psychiatric hospitalized hospitalised deaf blind wheelchair tourette
  tourettes concussion scribe cochlear
  special-education special-ed behavior-plan behaviour-plan intervention-plan individualized-education
  individual-education extended-time preferential-seating hearing-aid hearing-aids hard-of-hearing down-syndrome
  cerebral-palsy speech-therapy occupational-therapy related-services small-group-testing
`;

/** Marks, scores, grades, attendance, discipline and performance of one learner. */
const RESULT = `
  score scores scored scoring gpa percentile percent failed failing fails fail flunked flunking lexile grades marks
  struggles struggled struggling behind nonreader nonverbal disruptive aggressive misbehaves outburst outbursts meltdown
  meltdowns absent absence absences tardy tardies truant truancy suspended suspension expelled expulsion detention
  referral referrals disciplinary discipline arrested probation
  reading-level grade-level below-grade-level non-reader non-verbal acts-out office-referral
`;

/** Family, housing, legal, economic and language status. */
const CIRCUMSTANCE = `
  custody foster homeless homelessness unhoused undocumented immigration deported deportation refugee asylum
  incarcerated jail prison divorce divorced deceased died welfare pregnant pregnancy cps ell esl esol lep
  passed-away free-lunch reduced-lunch social-worker child-protective english-learner
`;

function familyTerms(list: string, family: RecordFamily, into: Map<string, RecordFamily>): void {
  for (const term of list.trim().split(/\s+/)) into.set(term.replaceAll('-', ' '), family);
}

/** Every record term (`special education` written with a space), with its family. */
export const RECORD_TERMS: ReadonlyMap<string, RecordFamily> = (() => {
  const map = new Map<string, RecordFamily>();
  familyTerms(PLAN_OR_DIAGNOSIS, 'plan_or_diagnosis', map);
  familyTerms(RESULT, 'result', map);
  familyTerms(CIRCUMSTANCE, 'circumstance', map);
  return map;
})();

/** The longest record term, in words: how far a phrase match looks ahead. */
export const LONGEST_RECORD_TERM = Math.max(...[...RECORD_TERMS.keys()].map((term) => term.split(' ').length));

/** Record terms that count only when written in capitals: `ADD`, `ODD`, `ASD`, `EL` are ordinary words otherwise. */
export const CAPITALS_ONLY_TERMS: ReadonlyMap<string, RecordFamily> = new Map([
  ['add', 'plan_or_diagnosis'],
  ['odd', 'plan_or_diagnosis'],
  ['asd', 'plan_or_diagnosis'],
  ['el', 'circumstance'],
  ['mll', 'circumstance'],
]);

/** Words after `504` (or before it) that make it the plan, not a room or a page. */
export const NOT_A_PLAN_BEFORE_504 = words(`room rooms unit page pages chapter lesson period number no # bus route`);

/** Letter-grade verbs: `got a D`, `earned an F`. */
export const GRADE_VERBS = words(`got gets getting earned earns received receives receiving`);

/** `grade` is a mark (not a year of school) after these words or before `of`. */
export const MARK_GRADE_BEFORE = words(`failing passing letter low poor bad good high final`);

/** Words for identifiers; a number within three tokens after one of them is an identifier. */
export const ID_WORDS = words(`id ids sid ssn osis upn uln nsn lasid sasid usi`);

/** The first word of two-word identifier names (`student number`, `roll no`). */
export const ID_NUMBER_OWNERS = words(`student pupil learner roll admission enrollment enrolment id`);

/** Month names and their abbreviations, for dates of birth. */
export const MONTHS = words(`
  january february march april may june july august september october november december jan feb mar apr jun jul aug
  sep sept oct nov dec
`);

/**
 * Capitalized words that are not names: what starts a sentence or follows a full stop in class-level text, subjects,
 * languages and the record terms themselves. Only the unknown-capitalized-subject heuristic reads it.
 */
export const KNOWN_CAPITALIZED = words(`
  the a an this that these those it its each every everyone everybody someone somebody anyone anybody nobody nothing
  everything something all most many some several few both none one there here what which who whom whose when where
  why how if then also and but or so yet for with without about after before during while because although though
  class group teacher teachers school district reading writing math maths mathematics science history geography
  english spanish arabic french german chinese mandarin cantonese vietnamese korean japanese russian portuguese somali
  haitian creole tagalog hindi urdu bengali punjabi polish ukrainian swahili amharic farsi dari pashto art music
  support instruction attendance homework time language literacy fluency vocabulary phonics comprehension practice
  work data progress behavior behaviour lunch recess
`);

/** After a singular learner noun, these make it a modifier (`the student council`), not one learner. */
export const ATTRIBUTIVE_AFTER = words(`
  council body teacher teachers work voice choice data success learning engagement achievement growth government
  handbook agency portfolio portfolios ownership talk discourse outcomes feedback thinking responses response samples
  products projects questions interest interests groups pairs accounts devices population populations centered led
  facing friendly version versions copies copy materials handouts survey surveys
`);

/** Words that end the look back from a singular learner noun to its determiner: `each student` is everyone. */
export const QUANTIFIERS = words(`each every any no all per of and or with for to in`);

/** Days of the week: capitalized, never names. */
export const DAYS = words(`monday tuesday wednesday thursday friday saturday sunday`);

/** Singular verbs that open a clipped note about one learner (`Has an IEP.`). */
export const SUBJECTLESS_OPENERS = words(`has had is was needs gets receives qualifies struggles`);
