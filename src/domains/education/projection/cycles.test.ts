import { describe, expect, it } from 'vitest';
import { cyclesOf } from './cycles.ts';

describe('cyclesOf', () => {
  it('finds no cycle in a chain, a tree or a diamond', () => {
    expect(cyclesOf([])).toEqual([]);
    expect(cyclesOf([['a', 'b'], ['b', 'c']])).toEqual([]);
    expect(cyclesOf([['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd']])).toEqual([]);
  });

  it('finds a self-loop, a two-cycle and a longer cycle, each once, sorted', () => {
    const cycles = cyclesOf([
      ['z', 'z'],
      ['q', 'p'],
      ['p', 'q'],
      ['c', 'a'],
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
    ]);
    expect(cycles).toEqual([['a', 'b', 'c'], ['p', 'q'], ['z']]);
  });

  it('merges cycles that share a node into one component, and leaves out nodes that only lead in or out', () => {
    const cycles = cyclesOf([
      ['in', 'a'],
      ['a', 'b'],
      ['b', 'a'],
      ['b', 'c'],
      ['c', 'b'],
      ['c', 'out'],
    ]);
    expect(cycles).toEqual([['a', 'b', 'c']]);
  });

  it('handles a chain of 20,000 nodes closed into one cycle without overflowing the stack', () => {
    const n = 20_000;
    const edges = Array.from({ length: n }, (_, i) => [`n${i}`, `n${(i + 1) % n}`] as const);
    const cycles = cyclesOf(edges);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toHaveLength(n);
  });

  it('answers the same whatever the order of the edges', () => {
    const edges: Array<readonly [string, string]> = [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'd'],
      ['f', 'f'],
    ];
    const expected = cyclesOf(edges);
    expect(cyclesOf([...edges].reverse())).toEqual(expected);
    expect(cyclesOf([edges[3]!, edges[6]!, edges[0]!, edges[5]!, edges[2]!, edges[1]!, edges[4]!])).toEqual(expected);
    expect(expected).toEqual([['a', 'b', 'c'], ['d', 'e'], ['f']]);
  });
});
