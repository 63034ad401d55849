import { describe, expect, it } from 'vitest';
import { entitlementsOf, PLAN_ENTITLEMENTS } from './plans.ts';

describe('entitlementsOf', () => {
  it('applies valid overrides over the plan', () => {
    const overrides = { mcpOperationsPerMinute: 5 };
    expect(entitlementsOf('free', overrides)).toEqual({ ...PLAN_ENTITLEMENTS.free, mcpOperationsPerMinute: 5 });
    // The same object again (a cached credential row): the same answer, and the plan's table is untouched.
    expect(entitlementsOf('free', overrides).mcpOperationsPerMinute).toBe(5);
    expect(PLAN_ENTITLEMENTS.free.mcpOperationsPerMinute).not.toBe(5);
  });

  it('ignores overrides that fail validation, whatever their shape', () => {
    for (const bad of [{ mcpOperationsPerMinute: -1 }, { unknown: 1 }, 'text', 7, null, [1]]) {
      expect(entitlementsOf('developer', bad)).toEqual(PLAN_ENTITLEMENTS.developer);
      expect(entitlementsOf('developer', bad)).toEqual(PLAN_ENTITLEMENTS.developer);
    }
  });

  it('returns a fresh object each time, so a caller changing it changes nothing else', () => {
    const overrides = { restOperationsPerMinute: 10 };
    const first = entitlementsOf('developer', overrides);
    first.restOperationsPerMinute = 99;
    expect(entitlementsOf('developer', overrides).restOperationsPerMinute).toBe(10);
  });
});
