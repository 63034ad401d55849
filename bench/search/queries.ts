/**
 * The three searches of the vault search benchmark (a rare term, a common term, a quoted phrase of the synthetic
 * vault), how each system spells them, and how an answer is checked against the notes that really contain the text.
 */
import { SYNTHETIC_COMMON_TERM, SYNTHETIC_PHRASE, SYNTHETIC_RARE_TERM } from '../vault-generator.ts';

/** Results per page asked of kgate and of SQLite FTS5: the top 20. */
export const RESULT_LIMIT = 20;

/** One benchmark search, spelled for each system. */
export interface BenchQuery {
  /** Short name used in labels: "rare", "common", "phrase". */
  key: 'rare' | 'common' | 'phrase';
  /** What the table calls it, e.g. "rare term `quasarflux`". */
  label: string;
  /** The text every matching note contains (case-insensitive); ripgrep's fixed string. */
  needle: string;
  /** kgate's query text (a quoted phrase for the phrase search). */
  kgateQuery: string;
  /** The FTS5 MATCH expression (FTS5 phrase syntax for the phrase search). */
  ftsMatch: string;
}

/** The searches, in table order. */
export const BENCH_QUERIES: readonly BenchQuery[] = [
  { key: 'rare', label: `rare term \`${SYNTHETIC_RARE_TERM}\``, needle: SYNTHETIC_RARE_TERM, kgateQuery: SYNTHETIC_RARE_TERM, ftsMatch: SYNTHETIC_RARE_TERM },
  {
    key: 'common',
    label: `common term \`${SYNTHETIC_COMMON_TERM}\``,
    needle: SYNTHETIC_COMMON_TERM,
    kgateQuery: SYNTHETIC_COMMON_TERM,
    ftsMatch: SYNTHETIC_COMMON_TERM,
  },
  {
    key: 'phrase',
    label: `phrase \`"${SYNTHETIC_PHRASE}"\``,
    needle: SYNTHETIC_PHRASE,
    kgateQuery: `"${SYNTHETIC_PHRASE}"`,
    ftsMatch: `"${SYNTHETIC_PHRASE}"`,
  },
];

/** What one system answered to one search: the paths found, and for ranked engines the snippets and page flag. */
export interface SearchAnswer {
  paths: string[];
  /** One per path (ranked engines only), without highlight markers. */
  snippets?: string[];
  /** kgate only: whether more results exist than the page holds. */
  truncated?: boolean;
}

/** How a system answers: the top RESULT_LIMIT (kgate, FTS5) or every matching file (ripgrep). */
export type AnswerKind = 'top' | 'all';

/** The vault-relative paths of the notes whose content contains `needle`, case-insensitively. */
export function notesContaining(notes: ReadonlyMap<string, string>, needle: string): Set<string> {
  const lower = needle.toLowerCase();
  const found = new Set<string>();
  for (const [path, content] of notes) if (content.toLowerCase().includes(lower)) found.add(path);
  return found;
}

/** Lower case with runs of white space made one space. */
function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ');
}

/**
 * What is wrong with an answer, or undefined when it is right. A "top" answer must hold min(RESULT_LIMIT, matching)
 * distinct matching paths, each with a snippet that shows the match (the needle's first word: FTS5's snippet window
 * may end inside a phrase), and (when the system reports it) `truncated` exactly when more notes match; an "all"
 * answer must list exactly the matching paths.
 */
export function answerProblem(answer: SearchAnswer, kind: AnswerKind, query: BenchQuery, matching: ReadonlySet<string>): string | undefined {
  const distinct = new Set(answer.paths);
  if (distinct.size !== answer.paths.length) return `${answer.paths.length - distinct.size} duplicate paths`;
  const wrong = answer.paths.filter((path) => !matching.has(path));
  if (wrong.length > 0) return `${wrong.length} results do not contain "${query.needle}", e.g. ${wrong[0]}`;
  const expected = kind === 'all' ? matching.size : Math.min(RESULT_LIMIT, matching.size);
  if (answer.paths.length !== expected) return `${answer.paths.length} results, expected ${expected} (${matching.size} notes match)`;
  if (kind === 'all') return undefined;
  if (answer.snippets?.length !== answer.paths.length) return 'a result has no snippet';
  const shown = normalized(query.needle).split(' ')[0] ?? '';
  const blind = answer.snippets.findIndex((snippet) => !normalized(snippet).includes(shown));
  if (blind >= 0) return `the snippet of ${answer.paths[blind]} does not show "${shown}": ${JSON.stringify(answer.snippets[blind])}`;
  if (answer.truncated !== undefined && answer.truncated !== matching.size > RESULT_LIMIT) {
    return `truncated is ${answer.truncated} with ${matching.size} matching notes and a limit of ${RESULT_LIMIT}`;
  }
  return undefined;
}
