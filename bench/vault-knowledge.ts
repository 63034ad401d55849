/**
 * The knowledge material a deterministic share of generated notes carries (docs/knowledge.md conventions), so that
 * benchmarks and tests compile every record kind from a synthetic vault: decision notes (some superseding or
 * contradicting an earlier one), entity notes (`type` and `id`, valid from a date), `> [!question]` and
 * `> [!decision]` callouts, tasks with owners, and typed relations in frontmatter.
 *
 * Material is added to a note after it is generated, with draws from its own stream: a note outside the share is
 * byte for byte what the generator made before this material existed, and the others differ only by it.
 */

/** What a note of the share gets; null for the three notes in four that get nothing. */
export type KnowledgeShare = 'decision' | 'entity' | 'question' | 'decision-callout' | 'owners' | 'relations' | null;

/** Draws from the note's own knowledge stream, and the vault's names (provided by the generator). */
export interface KnowledgeDraws {
  float(): number;
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  /** `min` to `max` capitalized vocabulary words. */
  words(min: number, max: number): string;
  /** A date in [fromYear, fromYear + years). */
  date(fromYear: number, years: number): string;
  /** The file name (link target) of note `index`. */
  nameOf(index: number): string;
}

/** People who own tasks and entities; no generated note is named after them (their links stay unresolved). */
export const SYNTHETIC_PEOPLE: readonly string[] = ['Avery Lee', 'Bo Nakamura', 'Chidi Okeke', 'Dana Novak', 'Eli Haddad', 'Farah Aziz', 'Gus Lindqvist', 'Hana Sato'];

const DECISION_STATUSES = ['accepted', 'accepted', 'proposed', 'superseded', 'rejected'] as const;
const RELATION_TYPES = ['depends_on', 'blocks', 'part_of', 'relates_to'] as const;

/**
 * The share note `index` belongs to. Per 100 consecutive notes: 3 decision notes, 2 entity notes, 5 with a question
 * callout, 1 with a decision callout, 10 whose tasks have owners, 4 with typed relations. The share repeats every 100
 * notes, so note `index - 100` of a decision note is a decision note too (what it supersedes).
 */
export function knowledgeShareOf(index: number, offset: number): KnowledgeShare {
  const k = ((index % 100) * 37 + offset) % 100;
  if (k < 3) return 'decision';
  if (k < 5) return 'entity';
  if (k < 10) return 'question';
  if (k < 11) return 'decision-callout';
  if (k < 21) return 'owners';
  if (k < 25) return 'relations';
  return null;
}

/** Lines added before the frontmatter's closing `---`, and lines replaced in it (by key). */
function editFrontmatter(content: string, replace: Record<string, string>, add: readonly string[]): string {
  const end = content.indexOf('\n---\n', 4);
  const lines = content.slice(4, end).split('\n');
  const edited = lines.map((line) => {
    const key = /^([a-z_]+):/.exec(line)?.[1];
    return key !== undefined && key in replace ? `${key}: ${replace[key]}` : line;
  });
  return `---\n${[...edited, ...add].join('\n')}${content.slice(end)}`;
}

const link = (name: string) => `"[[${name}]]"`;

function decision(content: string, index: number, draws: KnowledgeDraws): string {
  const status = draws.pick(DECISION_STATUSES);
  const add = [`decided: ${draws.date(2022, 4)}`, `subject: ${draws.words(2, 3)}`];
  if (index >= 100 && draws.float() < 0.4) add.push(`supersedes: ${link(draws.nameOf(index - 100))}`);
  if (index >= 200 && draws.float() < 0.3) add.push(`contradicts: ${link(draws.nameOf(index - 200))}`);
  return editFrontmatter(content, { type: 'decision', status }, add);
}

function entity(content: string, index: number, draws: KnowledgeDraws): string {
  const type = /\ntype: ([a-z]+)\n/.exec(content)?.[1] ?? 'note';
  return editFrontmatter(content, {}, [`id: ${type}-${index}`, `valid_from: ${draws.date(2022, 4)}`, `owner: ${link(draws.pick(SYNTHETIC_PEOPLE))}`]);
}

function withOwners(content: string, draws: KnowledgeDraws): string {
  return content.replace(/^(- \[[ x]\] [^\n]*?)( 📅 \d{4}-\d{2}-\d{2})?$/gmu, (_line, task: string, due: string | undefined) => {
    return `${task} [owner:: [[${draws.pick(SYNTHETIC_PEOPLE)}]]]${due ?? ''}`;
  });
}

/** Note `index` with the knowledge material of its share (unchanged when it has none). */
export function addKnowledgeMaterial(content: string, index: number, share: KnowledgeShare, draws: KnowledgeDraws): string {
  switch (share) {
    case null:
      return content;
    case 'decision':
      return decision(content, index, draws);
    case 'entity':
      return entity(content, index, draws);
    case 'question':
      return `${content}\n> [!question] ${draws.words(3, 6)}?\n`;
    case 'decision-callout':
      return `${content}\n> [!decision] ${draws.words(3, 5)}\n> Agreed on ${draws.date(2023, 3)}.\n`;
    case 'owners':
      return withOwners(content, draws);
    case 'relations':
      // To an earlier note (the first has none).
      return index === 0 ? content : editFrontmatter(content, {}, [`${draws.pick(RELATION_TYPES)}: ${link(draws.nameOf(draws.int(index)))}`]);
  }
}
