import { describe, expect, it } from 'vitest';
import { isCalendarDate, isCredentialFreeHttpsUrl, normalizeWhitespace } from './index.ts';

describe('pack format values', () => {
  it('accepts only real calendar dates written YYYY-MM-DD', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('2024-13-01')).toBe(false);
    expect(isCalendarDate('2024-1-01')).toBe(false);
    expect(isCalendarDate('2024-01-01T00:00:00Z')).toBe(false);
  });

  it('accepts only HTTPS citation URLs without credentials', () => {
    expect(isCredentialFreeHttpsUrl('https://standards.example/math')).toBe(true);
    expect(isCredentialFreeHttpsUrl('http://standards.example/math')).toBe(false);
    expect(isCredentialFreeHttpsUrl('https://user@standards.example/')).toBe(false);
    expect(isCredentialFreeHttpsUrl('https://:pw@standards.example/')).toBe(false);
    expect(isCredentialFreeHttpsUrl('standards.example/math')).toBe(false);
  });

  it('normalizes whitespace runs, line breaks included', () => {
    expect(normalizeWhitespace('  a \n\t b  ')).toBe('a b');
  });
});
