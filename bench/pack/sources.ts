/**
 * One generated source of the benchmark pack (`bench/pack-generator.ts`) with its versions' texts and the
 * assertions that cite it, drawn from the source's own PRNG stream, so a source is generated without the others.
 *
 * Dates are day numbers (days since 1970-01-01, UTC) until written. Every version is reported on or after its
 * publication and on or after the previous version's report; every assertion is accepted on or after the reports of
 * the versions it cites, and an assertion that supersedes another is accepted on or after it.
 */
import type { GeneratedAssertion, GeneratedSource, GeneratedVersion } from './model.ts';
import { BODIES, KINDS, Rng, SECTIONS, clauseLine, clauseStatement, drawClause, drawTopic, streamSeed, type Clause } from './vocabulary.ts';

/** A clause of a version, and where it came from in the previous version. */
interface Slot {
  clause: Clause;
  /** Index in the previous version's clauses of the clause this one keeps (same text) or revises. */
  from?: { index: number; revised: boolean };
}

interface Section {
  heading: string;
  slots: Slot[];
}

/** A version's text laid out: its lines, and the 1-based line of each clause (in reading order). */
interface Layout {
  lines: string[];
  clauseLines: number[];
  slots: Slot[];
}

const MIN_LINES = 20;
const MAX_LINES = 60;
const LAST_DAY = Date.UTC(2026, 11, 31) / 86_400_000;
const FIRST_DAY = Date.UTC(2015, 0, 1) / 86_400_000;
/** First versions are published by the end of 2024, later ones by mid-2026. */
const FIRST_VERSION_LAST_DAY = Date.UTC(2024, 11, 31) / 86_400_000;
const LATER_VERSION_LAST_DAY = Date.UTC(2026, 5, 30) / 86_400_000;
const SALT_SOURCE = 0x5c;
const MONTHS = 'January February March April May June July August September October November December'.split(' ');

const isoDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);
const yearOf = (day: number): number => new Date(day * 86_400_000).getUTCFullYear();
const dayOfYear = (year: number, offset: number): number => Date.UTC(year, 0, 1) / 86_400_000 + offset;

/** Lines of a layout of `sections` under a header of 4 lines: each section is a heading, a blank, its clauses, and a blank between sections. */
function lineCount(sections: readonly Section[]): number {
  return 3 + sections.reduce((n, s) => n + 3 + s.slots.length, 0);
}

function layout(header: readonly string[], sections: readonly Section[], numbered: boolean): Layout {
  const lines = [...header];
  const clauseLines: number[] = [];
  const slots: Slot[] = [];
  sections.forEach((section, s) => {
    if (s > 0) lines.push('');
    lines.push(`## ${s + 1}. ${section.heading}`, '');
    section.slots.forEach((slot, k) => {
      lines.push(clauseLine(slot.clause, numbered ? `${s + 1}.${k + 1}` : undefined));
      clauseLines.push(lines.length);
      slots.push(slot);
    });
  });
  return { lines, clauseLines, slots };
}

/** The first version's sections: 20 to 60 lines in all, 3 to 10 clauses a section. */
function firstSections(rng: Rng, binding: boolean): Section[] {
  const target = rng.range(MIN_LINES, MAX_LINES);
  const sections: Section[] = [];
  let cap = 0;
  while (lineCount(sections) < target) {
    const current = sections[sections.length - 1];
    // A new section costs 3 lines before its first clause: start one only when there is room for it.
    if (!current || (current.slots.length >= cap && target - lineCount(sections) >= 4)) {
      sections.push({ heading: rng.pick(SECTIONS), slots: [{ clause: drawClause(rng, binding) }] });
      cap = rng.range(3, 10);
    } else {
      current.slots.push({ clause: drawClause(rng, binding) });
    }
  }
  return sections;
}

/** A later version's sections: most clauses kept, some revised, a few dropped or added; still 20 to 60 lines. */
function laterSections(rng: Rng, previous: readonly Section[], binding: boolean): Section[] {
  let index = 0;
  const sections = previous.map((section) => {
    const slots: Slot[] = [];
    for (const slot of section.slots) {
      const from = index++;
      const roll = rng.float();
      if (roll < 0.25) slots.push({ clause: drawClause(rng, binding), from: { index: from, revised: true } });
      else if (roll >= 0.3) slots.push({ clause: slot.clause, from: { index: from, revised: false } });
    }
    if (rng.chance(0.3) || slots.length === 0) slots.push({ clause: drawClause(rng, binding) });
    return { heading: section.heading, slots };
  });
  while (lineCount(sections) > MAX_LINES) {
    const longest = sections.reduce((a, b) => (b.slots.length > a.slots.length ? b : a));
    longest.slots.pop();
  }
  while (lineCount(sections) < MIN_LINES) sections[sections.length - 1]!.slots.push({ clause: drawClause(rng, binding) });
  return sections;
}

/** Publication days of 1 to 3 versions: the first in 2015-2024, each later one 1 to 4 calendar years after the last, until mid-2026. */
function publicationDays(rng: Rng): number[] {
  const roll = rng.float();
  const wanted = roll < 0.4 ? 1 : roll < 0.75 ? 2 : 3;
  const days = [FIRST_DAY + rng.int(FIRST_VERSION_LAST_DAY - FIRST_DAY + 1)];
  while (days.length < wanted) {
    const year = yearOf(days[days.length - 1]!) + rng.range(1, 4);
    if (year > yearOf(LATER_VERSION_LAST_DAY)) break;
    const start = dayOfYear(year, 0);
    const end = Math.min(LATER_VERSION_LAST_DAY, dayOfYear(year + 1, -1));
    days.push(start + rng.int(end - start + 1));
  }
  return days;
}

/** Source `i` of `count` (its id is numbered to fit `count`), with its assertions. */
export function generateSource(seed: number, i: number, count: number): { source: GeneratedSource; assertions: GeneratedAssertion[] } {
  const rng = new Rng(streamSeed(seed, i, SALT_SOURCE));
  const body = rng.pick(BODIES);
  const kind = rng.pick(KINDS);
  const number = String(i + 1).padStart(Math.max(4, String(count).length), '0');
  const id = `${body.code}-${kind.code}-${number}`;
  const title = `${body.name} ${kind.name}: ${drawTopic(rng)} (${id.toUpperCase()})`;
  const numbered = kind.binding || rng.chance(0.3);

  const versions: GeneratedVersion[] = [];
  const layouts: Layout[] = [];
  const reportedDays: number[] = [];
  let sections: Section[] = [];
  for (const [v, published] of publicationDays(rng).entries()) {
    sections = v === 0 ? firstSections(rng, kind.binding) : laterSections(rng, sections, kind.binding);
    const reported = Math.min(LAST_DAY, Math.max(published + rng.range(0, 240), reportedDays[v - 1] ?? 0));
    const label = String(yearOf(published));
    const date = new Date(published * 86_400_000);
    const intro = `Issued by the ${body.name}, ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}.${
      v === 0 ? ' First edition.' : ` Replaces the ${versions[v - 1]!.label} edition.`
    }`;
    const laid = layout([`# ${title}, ${label} edition`, '', intro, ''], sections, numbered);
    layouts.push(laid);
    reportedDays.push(reported);
    versions.push({ label, published: isoDay(published), reported: isoDay(reported), extraction: v > 0 && rng.chance(0.2) ? 2 : 1, text: `${laid.lines.join('\n')}\n` });
  }
  const source: GeneratedSource = { id, title, citation: `https://${body.host}/${kind.path}/${id}`, versions };
  return { source, assertions: generateAssertions(rng, source, layouts, reportedDays) };
}

/** Assertions per version: 3 to 7 for the source, spread over its versions, the later ones first superseding. */
function generateAssertions(rng: Rng, source: GeneratedSource, layouts: readonly Layout[], reportedDays: readonly number[]): GeneratedAssertion[] {
  const total = rng.range(3, 7);
  const assertions: GeneratedAssertion[] = [];
  const acceptedDays = new Map<string, number>();
  let cited = new Map<number, GeneratedAssertion>();
  layouts.forEach((laid, v) => {
    const version = source.versions[v]!;
    const share = Math.floor(total / layouts.length) + (v >= layouts.length - (total % layouts.length) ? 1 : 0);
    const citedHere = new Map<number, GeneratedAssertion>();
    const evidenceAt = (k: number, two: boolean) => {
      const first = laid.clauseLines[k]!;
      const last = two && laid.clauseLines[k + 1] === first + 1 ? first + 1 : first;
      return { source: source.id, version: version.label, lines: [first, last] as [number, number], quote: laid.lines.slice(first - 1, last).join(' ') };
    };
    const make = (k: number, superseded?: GeneratedAssertion) => {
      const slot = laid.slots[k]!;
      const two = rng.chance(0.15);
      const evidence = [evidenceAt(k, two)];
      const reportDays = [reportedDays[v]!];
      let statement = clauseStatement(slot.clause);
      if (evidence[0]!.lines[1] > evidence[0]!.lines[0]) statement += ` ${clauseStatement(laid.slots[k + 1]!.clause)}`;
      // Some assertions also cite the same clause in the previous version, where it was kept unchanged.
      if (v > 0 && slot.from && !slot.from.revised && rng.chance(0.3)) {
        const before = layouts[v - 1]!;
        const line = before.clauseLines[slot.from.index]!;
        evidence.push({ source: source.id, version: source.versions[v - 1]!.label, lines: [line, line], quote: before.lines[line - 1]! });
        reportDays.push(reportedDays[v - 1]!);
      }
      let accepted = Math.min(LAST_DAY, Math.max(...reportDays) + rng.range(0, 60));
      if (superseded) accepted = Math.max(accepted, acceptedDays.get(superseded.id)!);
      const assertion: GeneratedAssertion = {
        id: `${source.id}-a${assertions.length + 1}`,
        statement,
        accepted: isoDay(accepted),
        supersedes: superseded ? [superseded.id] : [],
        evidence,
        clause: slot.clause,
      };
      acceptedDays.set(assertion.id, accepted);
      assertions.push(assertion);
      citedHere.set(k, assertion);
    };
    let made = 0;
    // Revised clauses whose predecessor has an assertion: the new assertion supersedes it.
    laid.slots.forEach((slot, k) => {
      if (made >= share || !slot.from?.revised) return;
      const old = cited.get(slot.from.index);
      if (old && rng.chance(0.85)) {
        make(k, old);
        made++;
      }
    });
    for (let tries = 0; made < share && tries < 50; tries++) {
      const k = rng.int(laid.slots.length);
      if (citedHere.has(k)) continue;
      make(k);
      made++;
    }
    cited = citedHere;
  });
  const superseded = new Set(assertions.flatMap((a) => a.supersedes));
  for (const a of assertions) {
    if (superseded.has(a.id) || !rng.chance(0.02)) continue;
    a.retracted = isoDay(Math.min(LAST_DAY, acceptedDays.get(a.id)! + rng.range(30, 700)));
  }
  return assertions;
}
