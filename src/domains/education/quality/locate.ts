/**
 * Where a quoted excerpt sits in the artifact: every quality finding cites a place, as offsets into the artifact's
 * text. A quote is found as written, or else with runs of white space compared as one space (a model may re-wrap
 * lines); a quote that is not in the text is not a citation, and the answer is invalid.
 */

/** A place in the artifact: UTF-16 offsets [start, end) and the text there. */
export interface ArtifactLocation {
  start: number;
  end: number;
  excerpt: string;
}

/** The text with white space runs as one space, and for each of its characters the offset in the original. */
function collapsed(text: string): { text: string; offsets: number[] } {
  let out = '';
  const offsets: number[] = [];
  let inSpace = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      if (inSpace) continue;
      inSpace = true;
      out += ' ';
    } else {
      inSpace = false;
      out += ch;
    }
    offsets.push(i);
  }
  return { text: out, offsets };
}

/** The first place of `quote` in `text`, or undefined when it is not there. */
export function locateExcerpt(text: string, quote: string): ArtifactLocation | undefined {
  const wanted = quote.trim();
  if (wanted === '') return undefined;
  const exact = text.indexOf(wanted);
  if (exact !== -1) return { start: exact, end: exact + wanted.length, excerpt: wanted };
  const haystack = collapsed(text);
  const needle = collapsed(wanted).text;
  const at = haystack.text.indexOf(needle);
  if (at === -1) return undefined;
  const start = haystack.offsets[at]!;
  const end = haystack.offsets[at + needle.length - 1]! + 1;
  return { start, end, excerpt: text.slice(start, end) };
}
