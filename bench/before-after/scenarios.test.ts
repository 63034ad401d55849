import { describe, expect, it } from 'vitest';
import { KEYS, notesPerRequest, selectKeys } from './scenarios.ts';

describe('the scenarios of the before-and-after benchmark', () => {
  it('measures every scenario when none is named, hello-world always, in KEYS order', () => {
    expect(selectKeys(undefined)).toEqual([...KEYS]);
    expect(selectKeys([])).toEqual([...KEYS]);
    expect(selectKeys(['apply10', 'read'])).toEqual(['hello', 'read', 'apply10']);
    expect(selectKeys(['hello'])).toEqual(['hello']);
  });

  it('refuses a name it does not know, and says which ones it knows', () => {
    expect(() => selectKeys(['read', 'apply100'])).toThrow(/unknown apply100; known: hello, read/);
  });

  it('counts the notes an applied request writes, none for the others', () => {
    expect(notesPerRequest('apply')).toBe(1);
    expect(notesPerRequest('apply10')).toBe(10);
    expect(KEYS.filter((key) => notesPerRequest(key) > 0)).toEqual(['apply', 'apply10']);
  });
});
