import { describe, expect, it } from 'vitest';
import { closingBackticks, indexOfCode, runLength } from './scan-text.ts';

describe('bounded scans', () => {
  it('search only inside [from, to)', () => {
    expect(indexOfCode('a|b|c', 124, 0, 5)).toBe(1);
    expect(indexOfCode('a|b|c', 124, 2, 5)).toBe(3);
    expect(indexOfCode('a|b|c', 124, 2, 3)).toBe(-1);
    expect(runLength('```x', 0, 4, 96)).toBe(3);
    expect(runLength('```x', 0, 2, 96)).toBe(2);
  });

  it('close a code span only with a run of the same length', () => {
    const text = '`` a ` b ``` c `` d';
    expect(closingBackticks(text, 2, text.length, 2)).toBe(15);
    expect(closingBackticks(text, 2, 14, 2)).toBe(-1);
    expect(closingBackticks(text, 2, text.length, 1)).toBe(5);
  });
});
