import { describe, expect, it } from 'vitest';
import { contrastRatio, formatContrastRatio, relativeLuminance } from './contrast.ts';

describe('WCAG 2.x contrast', () => {
  it('gives black and white their luminance and the full 21:1', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('#FFFFFF')).toBeCloseTo(1, 12);
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 10);
  });

  it('matches published figures: #767676 passes on white, #777777 does not', () => {
    // The two greys either side of 4.5:1 on white, as WCAG checkers report them (4.54:1 and 4.48:1).
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('weights green over red over blue', () => {
    expect(relativeLuminance('#00ff00')).toBeCloseTo(0.7152, 4);
    expect(relativeLuminance('#ff0000')).toBeCloseTo(0.2126, 4);
    expect(relativeLuminance('#0000ff')).toBeCloseTo(0.0722, 4);
  });

  it('does not depend on the order of the two colours', () => {
    expect(contrastRatio('#1a5fb4', '#fafafa')).toBe(contrastRatio('#fafafa', '#1a5fb4'));
  });

  it('rounds down when it shows a ratio, so a refused pair never reads as 4.50:1', () => {
    expect(formatContrastRatio(4.4999)).toBe('4.49:1');
    expect(formatContrastRatio(21)).toBe('21.00:1');
    expect(formatContrastRatio(4.56)).toBe('4.56:1');
  });

  it('refuses what is not #rrggbb', () => {
    expect(() => relativeLuminance('#fff')).toThrow(RangeError);
  });
});
