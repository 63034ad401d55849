import { describe, expect, it } from 'vitest';
import { abbaSchedule, chooseBaseline, compare, MIN_TOLERANCE, summarizeSide, verdictText, type RunNumbers } from './compare.ts';

function run(requestsPerSecond: number, p50Ms = 10, p99Ms = 20): RunNumbers {
  return { requestsPerSecond, p50Ms, p99Ms };
}

describe('chooseBaseline', () => {
  it('takes --baseline as given', () => {
    expect(chooseBaseline('v1.2', { head: 'abc', mergeBase: 'def' })).toEqual({ ref: 'v1.2', why: '`--baseline v1.2`' });
    expect(chooseBaseline('HEAD', { head: 'abc', mergeBase: undefined }).ref).toBe('HEAD');
  });

  it("defaults to where the branch left main when HEAD has commits of its own", () => {
    const choice = chooseBaseline(undefined, { head: 'abc', mergeBase: 'def' });
    expect(choice.ref).toBe('def');
    expect(choice.why).toContain('git merge-base main HEAD');
  });

  it('falls back to HEAD~1 on main itself, or without a main branch', () => {
    expect(chooseBaseline(undefined, { head: 'abc', mergeBase: 'abc' }).ref).toBe('HEAD~1');
    expect(chooseBaseline(undefined, { head: 'abc', mergeBase: undefined }).ref).toBe('HEAD~1');
    expect(chooseBaseline(undefined, { head: 'abc', mergeBase: undefined }).why).toContain('no `main` branch');
  });
});

describe('abbaSchedule', () => {
  it('measures each scenario old, new, new, old before the next one, restarting both servers at the middle', () => {
    expect(abbaSchedule(['hello', 'read'])).toEqual([
      { key: 'hello', side: 'old', run: 1 },
      { key: 'hello', side: 'new', run: 1 },
      { key: 'hello', side: 'new', run: 2, restartBefore: true },
      { key: 'hello', side: 'old', run: 2 },
      { key: 'read', side: 'old', run: 1 },
      { key: 'read', side: 'new', run: 1 },
      { key: 'read', side: 'new', run: 2, restartBefore: true },
      { key: 'read', side: 'old', run: 2 },
    ]);
  });

  it('gives every side two runs of every scenario, none when there are no scenarios', () => {
    const steps = abbaSchedule(['a', 'b', 'c']);
    for (const key of ['a', 'b', 'c']) {
      for (const side of ['old', 'new'] as const) {
        expect(steps.filter((s) => s.key === key && s.side === side).map((s) => s.run)).toEqual([1, 2]);
      }
    }
    expect(abbaSchedule([])).toEqual([]);
  });
});

describe('summarizeSide', () => {
  it('averages the two runs and measures their spread against the mean', () => {
    const side = summarizeSide([run(900, 10, 30), run(1100, 12, 50)]);
    expect(side).toEqual({ requestsPerSecond: 1000, p50Ms: 11, p99Ms: 40, runs: [900, 1100], spread: 0.2 });
  });

  it('has no spread for identical runs, and none for a side that answered nothing', () => {
    expect(summarizeSide([run(500), run(500)]).spread).toBe(0);
    expect(summarizeSide([run(0), run(0)]).spread).toBe(0);
  });
});

describe('compare', () => {
  it('gives the ratio new/old of the means', () => {
    const c = compare([run(1000), run(1000)], [run(1100), run(1100)]);
    expect(c.ratio).toBeCloseTo(1.1, 10);
    expect(c.old.requestsPerSecond).toBe(1000);
    expect(c.new.requestsPerSecond).toBe(1100);
  });

  it('calls a difference within the two run-to-run spreads added noise', () => {
    // Old runs 5% apart, new 1% apart: the tolerance is 6%; new is 5.5% slower.
    const c = compare([run(975), run(1025)], [run(940), run(950)]);
    expect(c.tolerance).toBeCloseTo(0.05 + 10 / 945, 10);
    expect(c.ratio).toBeCloseTo(0.945, 10);
    expect(c.verdict).toBe('within noise');
    expect(verdictText(c)).toBe('within noise (±6.1%)');
  });

  it('calls a difference beyond the tolerance slower or faster', () => {
    const slower = compare([run(1000), run(1010)], [run(880), run(890)]);
    expect(slower.verdict).toBe('slower');
    expect(verdictText(slower)).toBe('slower: −11.9% (noise ±2.1%)');
    const faster = compare([run(1000), run(1000)], [run(1200), run(1180)]);
    expect(faster.verdict).toBe('faster');
    expect(verdictText(faster)).toBe('faster: +19.0% (noise ±2.0%)');
  });

  it('never tolerates less than MIN_TOLERANCE, however well the runs agree', () => {
    const c = compare([run(1000), run(1000)], [run(985), run(985)]);
    expect(c.tolerance).toBe(MIN_TOLERANCE);
    expect(c.verdict).toBe('within noise');
    expect(compare([run(1000), run(1000)], [run(970), run(970)]).verdict).toBe('slower');
  });
});
