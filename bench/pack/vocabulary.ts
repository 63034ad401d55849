/**
 * The seeded vocabulary of the benchmark's generated pack (`bench/pack-generator.ts`): a tiny PRNG, the word lists
 * of standards-like and guidance-like clauses ("Schools must review the annual quality report of each course within
 * 30 days of a request."), the statements that paraphrase them, and the benchmark's questions.
 *
 * Many nouns, verbs and adjectives are also words of the synthetic vault (`bench/vault-generator.ts`), on purpose:
 * the questions are drawn from those shared words, so that `search_notes` and `search_published_intelligence` are
 * asked the same questions and both find something.
 */

/** 32-bit finaliser (murmur3 fmix32): a cheap, well-mixed integer hash. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit seed for the stream `salt` of item `index` under `seed`: each source draws from its own stream. */
export function streamSeed(seed: number, index: number, salt: number): number {
  return fmix32(fmix32(fmix32(seed ^ 0x9e3779b9) ^ (index >>> 0)) + Math.imul(salt, 0x165667b1));
}

/** mulberry32: a tiny, fast, deterministic 32-bit PRNG. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max], both included. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** A uniform element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
}

const list = (words: string): readonly string[] => words.trim().split(/\s*\|\s*/);

/** Issuing bodies (invented), each with the short code its documents' ids start with. */
export const BODIES: readonly { name: string; code: string; host: string }[] = [
  { name: 'Northbridge Education Council', code: 'nec', host: 'standards.northbridge.example' },
  { name: 'Lakeside Assessment Board', code: 'lab', host: 'www.lakeside-assessment.example' },
  { name: 'Riverton State Board of Education', code: 'rsb', host: 'education.riverton.example' },
  { name: 'Harbor Schools Authority', code: 'hsa', host: 'harbor-schools.example' },
  { name: 'Eastfield Quality Agency', code: 'eqa', host: 'quality.eastfield.example' },
  { name: 'Westmoor Curriculum Office', code: 'wco', host: 'curriculum.westmoor.example' },
  { name: 'Crescent Training Council', code: 'ctc', host: 'crescent-training.example' },
  { name: 'Highland Standards Institute', code: 'hsi', host: 'www.highland-standards.example' },
  { name: 'Meadowvale District Office', code: 'mdo', host: 'district.meadowvale.example' },
  { name: 'Stonegate Inspectorate', code: 'sgi', host: 'inspectorate.stonegate.example' },
  { name: 'Oakridge Qualifications Authority', code: 'oqa', host: 'qualifications.oakridge.example' },
  { name: 'Silverlake Data Protection Office', code: 'sdp', host: 'dataprotection.silverlake.example' },
];

/** Kinds of document: standards speak in "must", guidance in "should". */
export const KINDS: readonly { name: string; code: string; path: string; binding: boolean }[] = [
  { name: 'Standard', code: 'std', path: 'standards', binding: true },
  { name: 'Requirements', code: 'req', path: 'requirements', binding: true },
  { name: 'Code of Practice', code: 'cop', path: 'codes', binding: true },
  { name: 'Guidance', code: 'gui', path: 'guidance', binding: false },
  { name: 'Framework', code: 'frm', path: 'frameworks', binding: false },
  { name: 'Handbook', code: 'hbk', path: 'handbooks', binding: false },
];

export const ACTORS = list(`
  Schools | Districts | Teachers | Providers | Assessment centres | Examiners | Course leaders | Training providers |
  Inspectors | Governing bodies | Service owners | Data controllers | Support staff | Programme managers | Colleges |
  Headteachers | Awarding bodies | Team leaders | Department heads | Exam officers`);

/** Verbs: most of them are also words of the synthetic vault. */
export const VERBS = list(`
  review | record | publish | track | validate | verify | monitor | assess | share | prepare | define | describe |
  compare | collect | update | support | deliver | align | include | report | measure | check | approve | retain |
  archive | analyze | capture | document | improve | organize | refine | simplify | clarify | gather | revisit`);

/** Adjectives: most of them are also words of the synthetic vault. */
export const ADJECTIVES = list(`
  annual | current | clear | formal | external | internal | public | shared | key | main | regular | relevant |
  specific | stable | typical | useful | basic | central | complex | daily | final | general | initial | monthly |
  weekly | personal | practical | previous | primary | recent | technical | written | accessible | statutory`);

/** Nouns of what clauses are about: most of them are also words of the synthetic vault. */
export const NOUNS = list(`
  policy | record | report | evidence | outcome | progress | standard | requirement | review | schedule | budget |
  risk | quality | feedback | training | lesson | course | material | resource | summary | target | score | sample |
  method | measure | metric | plan | process | practice | priority | role | rule | scope | status | template |
  timeline | version | data | document | guide | handbook | history | calendar | checklist | deadline | decision |
  goal | agreement | analysis | baseline | capacity | incident | inventory | journal | library |
  milestone | profile | register | attendance | curriculum | assessment | safeguarding | accreditation | complaint`);

/** What a clause's object belongs to. */
export const OWNERS = list(`
  course | school | learner | class | programme | provider | site | module | cohort | department | service |
  contract | project | team | session | district | assessment | qualification | apprenticeship | examination`);

const EVENTS = list(`
  a request | the start of each term | an inspection | a complaint | the end of the school year | each assessment |
  a change of provider | an incident | the annual review | enrolment | the first lesson | a transfer`);
const PERIODS = list(`a year | each term | a month | every two years | each semester | every three years`);
const AUDIENCES = list(`
  parents | the governing body | the inspection team | learners | the district office | the public | staff |
  the awarding body | external examiners`);
const DAYS = [5, 7, 10, 14, 15, 20, 28, 30, 45, 60, 90];
const YEARS = [2, 3, 5, 6, 7, 10];

/** Section headings of a document. */
export const SECTIONS = list(`
  Scope | Records and evidence | Assessment | Reporting | Quality assurance | Safeguarding | Data protection |
  Staffing and training | Curriculum | Review and revision | Accessibility | Complaints | Attendance |
  Information for parents | Governance | Resources and materials | Examinations | Inspection`);

/** The modal verb of a clause, and how a statement paraphrases it. */
const MODALS: readonly { modal: string; paraphrase: string }[] = [
  { modal: 'must', paraphrase: 'are required to' },
  { modal: 'should', paraphrase: 'are advised to' },
  { modal: 'may', paraphrase: 'are allowed to' },
  { modal: 'must not', paraphrase: 'are not allowed to' },
];

/** One clause of a source text, in parts, so that a statement can paraphrase it. */
export interface Clause {
  actor: string;
  modal: number;
  verb: string;
  object: string;
  condition: string;
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

function objectPhrase(rng: Rng): string {
  const noun = rng.pick(NOUNS);
  const adjective = rng.chance(0.7) ? `${rng.pick(ADJECTIVES)} ` : '';
  const owner = rng.pick(OWNERS);
  switch (rng.int(4)) {
    case 0:
      return `the ${adjective}${noun} of each ${owner}`;
    case 1:
      return `${article(adjective || noun)} ${adjective}${noun} for every ${owner}`;
    case 2:
      return `the ${owner} ${noun} and its ${rng.pick(NOUNS)}`;
    default:
      return `the ${adjective}${owner} ${noun}`;
  }
}

function conditionPhrase(rng: Rng): string {
  switch (rng.int(7)) {
    case 0:
      return `within ${rng.pick(DAYS)} days of ${rng.pick(EVENTS)}`;
    case 1:
      return `at least once ${rng.pick(PERIODS)}`;
    case 2:
      return `before ${rng.pick(EVENTS)}`;
    case 3:
      return `after each ${rng.pick(OWNERS)} ${rng.pick(NOUNS)}`;
    case 4:
      return `when the ${rng.pick(NOUNS)} changes`;
    case 5:
      return `in line with the ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
    default:
      return rng.chance(0.5) ? `and keep it for ${rng.pick(YEARS)} years` : `and share it with ${rng.pick(AUDIENCES)}`;
  }
}

/** A new clause; binding documents say "must" more often, guidance "should". */
export function drawClause(rng: Rng, binding: boolean): Clause {
  const roll = rng.float();
  const modal = binding ? (roll < 0.6 ? 0 : roll < 0.75 ? 1 : roll < 0.9 ? 2 : 3) : roll < 0.15 ? 0 : roll < 0.8 ? 1 : roll < 0.95 ? 2 : 3;
  return { actor: rng.pick(ACTORS), modal, verb: rng.pick(VERBS), object: objectPhrase(rng), condition: conditionPhrase(rng) };
}

/** The clause as a line of the source text, after its number (e.g. "2.3") when the document numbers its clauses. */
export function clauseLine(clause: Clause, number: string | undefined): string {
  const text = `${clause.actor} ${MODALS[clause.modal]!.modal} ${clause.verb} ${clause.object} ${clause.condition}.`;
  return number === undefined ? text : `${number} ${text}`;
}

/** An accepted statement that paraphrases the clause, as a curator writes it. */
export function clauseStatement(clause: Clause): string {
  return `${clause.actor} ${MODALS[clause.modal]!.paraphrase} ${clause.verb} ${clause.object} ${clause.condition}.`;
}

/** A short topic for a title, e.g. "Annual Assessment Records". */
export function drawTopic(rng: Rng): string {
  const title = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  return `${title(rng.pick(ADJECTIVES))} ${title(rng.pick(OWNERS))} ${title(rng.pick(NOUNS))}s`;
}

/**
 * Words of the pack that are also words of the synthetic vault (checked by bench/pack-generator.test.ts): the
 * benchmark's questions are made of them.
 */
export const SHARED_WORDS = list(`
  review | record | publish | track | validate | verify | monitor | share | prepare | define | describe | compare |
  collect | update | support | deliver | align | include | report | measure | check | analyze | capture | document |
  improve | organize | refine | simplify | clarify | gather | revisit | annual | current | clear | formal | external |
  internal | public | shared | key | main | regular | relevant | specific | stable | typical | useful | basic |
  central | complex | daily | final | general | initial | monthly | weekly | personal | practical | previous |
  primary | recent | technical | policy | evidence | outcome | progress | standard | requirement | schedule | budget |
  risk | quality | feedback | training | lesson | course | material | resource | summary | target | score | sample |
  method | metric | plan | process | practice | priority | role | rule | scope | status | template | timeline |
  version | data | guide | handbook | history | calendar | checklist | deadline | decision | goal | agreement |
  analysis | baseline | capacity | incident | inventory | journal | library | milestone | profile | service |
  contract | project | team | session`);

/**
 * `count` questions of one to three shared words (a third each), deterministic for `seed`: one word finds many
 * items, three words few.
 */
export function benchQuestions(count: number, seed: number): string[] {
  const rng = new Rng(streamSeed(seed, 0, 0x51));
  return Array.from({ length: count }, (_, k) => {
    const words = new Set<string>();
    while (words.size < (k % 3) + 1) words.add(rng.pick(SHARED_WORDS));
    return [...words].join(' ');
  });
}
