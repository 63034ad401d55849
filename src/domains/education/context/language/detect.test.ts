import { describe, expect, it } from 'vitest';
import { findLearnerSpecificLanguage as detect } from './detect.ts';
import { LEARNER_LANGUAGE_RULES, LEARNER_LANGUAGE_RULE_CODES, type LearnerLanguageRule } from './rules.ts';

// Each rule of the learner-specific language detector at its edge: the smallest text it catches beside the closest
// class-level text it must let through. docs/education.md lists the same rules.

/** Asserts that `text` breaks `rule` (and maybe others). */
function catches(rule: LearnerLanguageRule, texts: string[]): void {
  for (const text of texts) expect(detect(text), text).toContain(rule);
}

/** Asserts that `text` breaks no rule at all. */
function passes(texts: string[]): void {
  for (const text of texts) expect(detect(text), text).toEqual([]);
}

describe('learner-specific language: identifiers', () => {
  it('catches e-mail addresses, but not an @ without a domain', () => {
    catches('email_address', ['Write to jake.smith@school.org', 'family: MARIA_L+1@mail.example.co.uk.', 'ana@x.io']);
    passes(['Meet @ the library', 'Use the class handle @science7 on the board', 'a@b', 'see us@home today']);
  });

  it('catches phone numbers in their usual shapes, but not year spans, grade ranges or score lists', () => {
    catches('phone_number', ['Call 555-123-4567', '(555) 123 4567', '(555)123-4567', '+44 20 7946 0958', 'at 555-0134 today', '555.123.4567']);
    passes(['The 2023-2024 school year', 'grades 6-8', 'Scores of 10 20 30 40 50 were common', 'pages 120-145', 'room 555 1234 chairs']);
  });

  it('catches identification numbers: six digits or more, or a number after an identifier word', () => {
    catches('identification_number', ['Lunch number 558211', 'S1234567 on file', 'ID 4471', 'student number: 12', 'SID #A77', 'student no. S-1234', 'her SSN']);
    passes(['Unit 12345 of the course', 'ID cards are kept at the office', 'about 100,000 words read by the class this year']);
  });

  it('catches dates of birth, but not a date on its own or class birthdays', () => {
    catches('date_of_birth', ['DOB 3/4/2012', 'D.O.B. 2014-03-09', 'date of birth', 'birthdate on file', 'born on March 3', 'born in 2013', 'birthday: May 3']);
    passes(['Quiz on 3/14/2025', 'Class birthdays are celebrated monthly', 'Students born storytellers', 'The unit starts March 3']);
  });
});

describe('learner-specific language: people', () => {
  it('catches a known given name in record phrasing, but not a name without record words', () => {
    catches('named_learner', ['Marcus needs help with reading.', 'Maria has an IEP.', 'Jake Smith failed the quiz', "Aaliyah's IEP lists a scribe", "Jake Smith's grades dropped", 'I think Will needs a scribe.']);
    passes(['The unit centers on Rosa Parks and the bus boycott.', 'Thanks to Maria for the slides', 'Will students need calculators?', 'Grace period for late work is two days.']);
  });

  it('catches learner labels: student plus a name, a letter, a number or "named"', () => {
    catches('named_learner', ['student Jake Smith', 'Student A reads slowly', 'student #12 sits alone', 'student 12 sits alone', 'a boy named Theo', 'students Maria and Jake']);
    passes(['the student council meets Fridays', 'students I teach in period 2', 'student-led groups', 'Student work is displayed']);
  });

  it('catches gendered singular pronouns, but not the generic pairs', () => {
    catches('gendered_pronoun', ['She struggles with fractions.', 'he was absent', 'His fluency is improving', 'Give her extra time']);
    passes(['Each student records his or her answer.', 'he/she writes a reflection', 's/he chooses a book', 'her or his own words']);
  });

  it("lets a pronoun after an adult role be the adult's, unless the sentence holds a record term", () => {
    passes(['The co-teacher models the strategy before she releases students.', 'Ms. Rivera joins us, and she leads a phonics group.']);
    catches('gendered_pronoun', ['The aide says she has an IEP.', 'The co-teacher joins. She leads a group.']);
  });

  it('ties plan and diagnosis words to a person, but not to groups', () => {
    catches('individual_plan_or_diagnosis', [
      'The student with autism sits near the door.',
      'a new student has a 504 plan',
      'Has ADHD; sits away from the window.',
      'In period 3, Xiomara has an IEP.',
      'Maria, Jake and Ana need preferential seating.',
      'She takes medication at lunch.',
    ]);
    passes([
      'Seven students have 504 plans.',
      'Students with IEPs receive extended time.',
      'Use a dyslexia-friendly font.',
      'Visual schedules support autistic learners.',
      'Room 504 is the testing room.',
      'Add visuals to every slide.',
    ]);
  });

  it('ties results, attendance and discipline to a person, but not class averages', () => {
    catches('individual_result', ['Jake got a D on the test', 'The new student scored 42% on the quiz', 'A girl in the class has 14 absences', 'This learner was suspended twice', 'He scored 12/20']);
    passes(['The class average was 68%.', 'About 40% of students scored below 60%.', 'Students who struggle with fractions use number lines.']);
  });

  it('ties family, housing, legal and language status to a person, but not to groups', () => {
    catches('individual_circumstance', ['Our newest student is in foster care.', 'Omar is an EL newcomer.', 'One pupil is homeless this term.']);
    passes(['Several learners are recent refugees; visuals help.', 'Multilingual learners (ELL) use glossaries.']);
  });

  it('does not tie a name in one sentence to a record term in the next', () => {
    passes(['Thanks to Maria for the slides. Several students have IEPs.']);
  });

  it('does not treat an unknown capitalized word at the start of a sentence as a name unless "has" and a plan term follow', () => {
    passes(['Fluency is a focus for students with IEPs.', 'Desmos is used by the class.']);
    catches('individual_plan_or_diagnosis', ['Xochil has an IEP.', 'Luna has an IEP.', 'Grace is on a 504 plan.']);
    passes(['Grace periods apply to late work.', 'Hope is the theme of the unit.']);
  });
});

describe('learner-specific language: counts of learners', () => {
  it('refuses one or two learners, and three or four as a group too small, but not five', () => {
    catches('learner_count_one_or_two', ['Each of the two students has an IEP.', '1 student', 'one student needs a scribe', 'two students', 'both students', 'a couple of students', 'one of my students', '1 or 2 learners']);
    catches('small_group_count', ['3 students', 'three learners', 'four of the pupils', '3-4 learners', 'fewer students: 4 kids']);
    passes(['5 students need extended time', 'five learners', '3-5 students', '4 to 6 students', 'twenty-one students', 'several learners benefit from visuals', 'the class']);
  });

  it('does not count grade labels, ratios, group sizes, ordinals or distributive wording', () => {
    passes([
      'Grade 2 students read aloud.',
      'K-2 learners',
      'Tier 2 students get small-group phonics',
      'Year 2 pupils',
      '1 in 4 students',
      'one out of 4 students',
      'Work in groups of 4 students.',
      'in groups of 3 to 4 students',
      '1st grade students',
      '2nd-grade learners',
      'one student at a time',
      'two students per laptop',
      '2 students to a table',
      '1/2 of the students',
      'more than two students',
      'Each table has four students.',
    ]);
  });
});

describe('learner-specific language: reading the text', () => {
  it('reads through invisible characters, full-width letters and curly apostrophes', () => {
    catches('named_learner', ['M\u200Baria has an IEP', '\uFF2A\uFF41\uFF4B\uFF45 failed the quiz', 'Aaliyah\u2019s IEP lists a scribe', 'Ma\u00ADria has an IEP']);
  });

  it('reports each rule once, in the documented order, with its code', () => {
    const rules = detect('She has an IEP. Maria has one too; call 555-123-4567 or write to m@school.org.');
    expect(rules).toEqual(['email_address', 'phone_number', 'named_learner', 'gendered_pronoun', 'individual_plan_or_diagnosis']);
    expect(LEARNER_LANGUAGE_RULES.filter((rule) => LEARNER_LANGUAGE_RULE_CODES[rule] === 'group_too_small')).toEqual(['small_group_count']);
  });

  it('answers empty and punctuation-only text with no findings', () => {
    passes(['', '   ', '\n\n', '...', '—', '@', '#', '-', '()']);
  });

  it('finishes on long adversarial input built to make backtracking matchers explode', () => {
    const long = 20_000;
    const inputs = [
      'a@'.repeat(long / 2),
      '1-'.repeat(long / 2),
      '1 '.repeat(long / 2),
      '( '.repeat(long / 2),
      'student '.repeat(long / 8),
      'a.'.repeat(long / 2),
      "a'".repeat(long / 2),
      'x'.repeat(long) + '@' + 'y.'.repeat(long / 2),
    ];
    for (const input of inputs) expect(Array.isArray(detect(input))).toBe(true);
    // A long class-level text is still class-level.
    expect(detect('Several learners benefit from visuals. '.repeat(500))).toEqual([]);
  });

  it('answers the same for the same text', () => {
    const text = 'Maria has an IEP; two students need glossaries; 5 students need extended time.';
    expect(detect(text)).toEqual(detect(text));
  });
});
