import { describe, expect, it } from 'vitest';
import { admittedReturnTarget, MAX_RETURN_TARGET_LENGTH, returnUrl } from './return-targets.ts';

const REGISTERED = ['https://planner.example.com', 'https://tutor.example.org/oauth/done?x=1'];

describe('return targets of delegated connections', () => {
  it('admits any path of a registered origin, and a registered redirect URI exactly', () => {
    expect(admittedReturnTarget('https://planner.example.com/after/connect?tab=2', REGISTERED)).toBe('https://planner.example.com/after/connect?tab=2');
    expect(admittedReturnTarget('https://planner.example.com', REGISTERED)).toBe('https://planner.example.com/');
    expect(admittedReturnTarget('https://PLANNER.example.com/x', REGISTERED)).toBe('https://planner.example.com/x');
    expect(admittedReturnTarget('https://tutor.example.org/oauth/done?x=1', REGISTERED)).toBe('https://tutor.example.org/oauth/done?x=1');
  });

  it('refuses everything else', () => {
    for (const refused of [
      // An exact redirect URI admits no other path or query of its origin.
      'https://tutor.example.org/oauth/done',
      'https://tutor.example.org/oauth/done?x=2',
      'https://tutor.example.org/',
      // Another origin, scheme or port; look-alikes.
      'https://planner.example.com.evil.example/',
      'https://evil.example/?https://planner.example.com',
      'http://planner.example.com/',
      'https://planner.example.com:8443/',
      'https://user:pw@planner.example.com/',
      'https://planner.example.com/#fragment',
      'https://planner.example.com/\tx',
      'javascript:alert(1)',
      '//planner.example.com/',
      '',
      `https://planner.example.com/${'a'.repeat(MAX_RETURN_TARGET_LENGTH)}`,
    ]) {
      expect(admittedReturnTarget(refused, REGISTERED), refused).toBeNull();
    }
    expect(admittedReturnTarget('https://planner.example.com/', [])).toBeNull();
  });

  it('adds the outcome to the target, keeping its own query', () => {
    expect(returnUrl('https://tutor.example.org/oauth/done?x=1', { status: 'connected', state: 'a b', skipped: undefined })).toBe(
      'https://tutor.example.org/oauth/done?x=1&status=connected&state=a+b',
    );
  });
});
