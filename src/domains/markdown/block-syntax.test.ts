import { describe, expect, it } from 'vitest';
import { atxHeadingAt, calloutAt, fenceOpenAt, isFenceClose, isThematicBreak, listContentAt, quotePrefix, setextLevelAt, taskStatusAt } from './block-syntax.ts';
import type { QuotePrefix } from './block-syntax.ts';

const whole = <T>(read: (c: string, q: number, end: number) => T) => (line: string) => read(line, 0, line.length);

describe('block syntax of one line', () => {
  it('strips blockquote markers, up to a number of levels', () => {
    const into: QuotePrefix = { contentStart: 0, depth: 0 };
    quotePrefix('> >> text', 0, 9, Infinity, into);
    expect(into).toEqual({ contentStart: 5, depth: 3 });
    quotePrefix('> >> text', 0, 9, 1, into);
    expect(into).toEqual({ contentStart: 2, depth: 1 });
    quotePrefix('    > code', 0, 10, Infinity, into);
    expect(into.depth).toBe(0);
  });

  it('opens and closes fences', () => {
    expect(['```', '~~~~ js', '``', '```js `x`', '~~~ `ok`', 'x```'].map(whole(fenceOpenAt))).toEqual([3, 4, 0, 0, 3, 0]);
    expect(isFenceClose('  ````  ', 0, 8, 96, 3)).toBe(true);
    expect(isFenceClose('``', 0, 2, 96, 3)).toBe(false);
    expect(isFenceClose('``` x', 0, 5, 96, 3)).toBe(false);
    expect(isFenceClose('~~~', 0, 3, 96, 3)).toBe(false);
  });

  it('reads ATX headings and setext underlines', () => {
    expect(whole(atxHeadingAt)('### A # B ###')).toEqual({ level: 3, textStart: 4, textEnd: 9 });
    expect(whole(atxHeadingAt)('## C#')).toEqual({ level: 2, textStart: 3, textEnd: 5 });
    expect(['#x', '####### seven', ''].map(whole(atxHeadingAt))).toEqual([undefined, undefined, undefined]);
    expect(['===', '--  ', '- -', '=x', 'a'].map(whole(setextLevelAt))).toEqual([1, 2, 0, 0, 0]);
    expect(['---', '* * *', '__ _', '--', '-*-'].map(whole(isThematicBreak))).toEqual([true, true, true, false, false]);
  });

  it('reads callout first lines', () => {
    expect(whole(calloutAt)('[!Warning]- Clock skew ')).toEqual({ type: 'warning', fold: '-', titleStart: 12, titleEnd: 22 });
    expect(whole(calloutAt)('[!note]')).toEqual({ type: 'note', titleStart: 7, titleEnd: 7 });
    expect(['[!]', '[!a b]', '[note]', '[!note'].map(whole(calloutAt))).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('reads list markers and task boxes', () => {
    expect(['- a', '*\tb', '+', '12) c', '3. d', '-a', '1.x', '1234567890. e', 'a. f'].map(whole(listContentAt))).toEqual([2, 2, 1, 4, 3, -1, -1, -1, -1]);
    expect(taskStatusAt('[ ] x', 0, 5)).toBe(' ');
    expect(taskStatusAt('[x]', 0, 3)).toBe('x');
    expect(taskStatusAt('[x]y', 0, 4)).toBeUndefined();
    expect(taskStatusAt('[x', 0, 2)).toBeUndefined();
  });
});
