/**
 * Seeded random Markdown notes for the section-level write properties: headings (some repeated under other parents),
 * paragraphs and list items ending in `^id`, fenced code holding heading-like and marker-like lines, an optional
 * frontmatter block, LF or CRLF, with or without a trailing newline. The same seed always gives the same notes.
 */
export { seededRandom } from './seeded-random.ts';

/** A generated note and what it holds, so that a test can name targets that exist and ones that do not. */
export interface GeneratedNote {
  content: string;
  /** Heading paths (`Parent > Child`) that name exactly one heading. */
  headings: string[];
  /** Heading texts that several headings hold. */
  repeatedHeadings: string[];
  /** Block ids that mark exactly one block. */
  blockIds: string[];
  /** Frontmatter keys it holds (none when it has no frontmatter). */
  keys: string[];
  eol: '\n' | '\r\n';
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'kappa', 'sigma', 'omega', 'zeta', 'Größe', 'naïve', '東京', 'x#y', '[[Link]]', '#tag', '`code`'];

/** One note from `random`. */
export function generateNote(random: () => number): GeneratedNote {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const words = (n: number) => Array.from({ length: 1 + Math.floor(random() * n) }, () => pick(WORDS)).join(' ');
  const eol = random() < 0.3 ? '\r\n' : '\n';
  const lines: string[] = [];
  const keys: string[] = [];
  if (random() < 0.6) {
    lines.push('---');
    const count = Math.floor(random() * 4);
    for (let k = 0; k < count; k += 1) {
      const key = `key${k}`;
      keys.push(key);
      if (random() < 0.5) lines.push(`${key}:  "${words(2)}"   # kept as written`);
      else lines.push(`${key}:`, `  - "${words(1)}"`);
    }
    lines.push('---');
  }
  const headings: string[] = [];
  const repeatedHeadings = new Set<string>();
  const blockIds: string[] = [];
  let blockCount = 0;
  const sections = 1 + Math.floor(random() * 4);
  for (let s = 0; s < sections; s += 1) {
    const top = `Part ${s}`;
    lines.push(`# ${top}`);
    headings.push(top);
    const children = Math.floor(random() * 3);
    for (let c = 0; c < children + 1; c += 1) {
      if (c > 0) {
        // "Details" repeats under every part: unique only with its parent named.
        const child = c === 1 ? 'Details' : `Child ${s}.${c}`;
        lines.push(`${'#'.repeat(2)} ${child}${random() < 0.2 ? ' ##' : ''}`);
        headings.push(`${top} > ${child}`);
        if (child === 'Details') repeatedHeadings.add('Details');
      }
      const blocks = Math.floor(random() * 4);
      for (let b = 0; b < blocks; b += 1) {
        const kind = random();
        if (kind < 0.3) {
          const id = `b${blockCount++}`;
          lines.push(`- ${words(3)} ^${id}`);
          blockIds.push(id);
        } else if (kind < 0.55) {
          const id = `b${blockCount++}`;
          lines.push(words(4), `${words(3)} ^${id}`);
          blockIds.push(id);
        } else if (kind < 0.75) {
          lines.push('```', `# ${top}`, `## Details`, `fenced ^f${blockCount}`, '```');
        } else if (kind < 0.9) {
          lines.push(words(5));
        }
        if (random() < 0.5) lines.push('');
      }
    }
  }
  // "Details" is a repeated heading only when two parts have it.
  const details = headings.filter((h) => h.endsWith('> Details')).length;
  const text = lines.join(eol) + (random() < 0.7 ? eol : '');
  return { content: text, headings, repeatedHeadings: details > 1 ? [...repeatedHeadings] : [], blockIds, keys, eol };
}
