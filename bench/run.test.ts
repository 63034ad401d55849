import { describe, expect, it } from 'vitest';
import { BENCHMARKS, benchmarkName, selectBenchmarks } from './run.ts';

const names = (list: ReturnType<typeof selectBenchmarks>) => list.map(benchmarkName);

describe('selectBenchmarks', () => {
  it('runs every benchmark of BENCHMARKS without --only, but not the before-and-after comparison', () => {
    expect(names(selectBenchmarks([], undefined))).toEqual(BENCHMARKS.map(benchmarkName));
    expect(names(selectBenchmarks([], undefined))).not.toContain('before-and-after');
  });

  it('runs the before-and-after comparison when --only names it, with or without --baseline', () => {
    expect(names(selectBenchmarks(['before-and-after'], undefined))).toEqual(['before-and-after']);
    expect(names(selectBenchmarks(['before-and-after'], 'HEAD~3'))).toEqual(['before-and-after']);
    expect(names(selectBenchmarks(['mcp-throughput', 'before-and-after'], 'main'))).toEqual(['mcp-throughput', 'before-and-after']);
  });

  it('refuses unknown names, and --baseline without before-and-after', () => {
    expect(() => selectBenchmarks(['before-after'], undefined)).toThrow(/unknown benchmark before-after; known: .*before-and-after/);
    expect(() => selectBenchmarks([], 'HEAD~1')).toThrow(/--baseline applies to before-and-after only/);
    expect(() => selectBenchmarks(['http-throughput'], 'HEAD~1')).toThrow(/--only before-and-after/);
  });
});
