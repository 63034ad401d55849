import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AnyOperation } from '../operations/operation.ts';
import { present } from './present.ts';

// Only `id` and `output` matter to present(); the rest of an operation is not needed here.
const operation = (id: string, output: z.ZodType) => ({ id, output }) as unknown as AnyOperation;

describe('present', () => {
  const page = operation('page', z.object({ results: z.array(z.object({ path: z.string() })), truncated: z.boolean() }));
  const paths = operation('paths', z.object({ results: z.array(z.object({ path: z.string() })) }));

  it('drops undeclared fields, and refuses an output that does not match its schema', () => {
    expect(present(page, { results: [{ path: 'a.md', secret: 1 }], truncated: false, extra: true })).toEqual({ results: [{ path: 'a.md' }], truncated: false });
    expect(() => present(page, { results: 'no' })).toThrow(/does not match its schema/);
  });

  it('presents a frozen output once per operation, and shares a deeply frozen value', () => {
    const output = Object.freeze({ results: Object.freeze([Object.freeze({ path: 'a.md', secret: 1 })]), truncated: true });
    const first = present(page, output);
    expect(present(page, output)).toBe(first);
    expect(first).toEqual({ results: [{ path: 'a.md' }], truncated: true });
    expect(Object.isFrozen(first) && Object.isFrozen(first.results) && Object.isFrozen((first.results as object[])[0])).toBe(true);
    // Another operation's schema over the same object: its own presentation.
    expect(present(paths, output)).toEqual({ results: [{ path: 'a.md' }] });
  });

  it('presents an output that is not frozen every time, into a new object', () => {
    const output = { results: [{ path: 'a.md' }], truncated: false };
    const first = present(page, output);
    output.results[0]!.path = 'b.md';
    const second = present(page, output);
    expect(second).not.toBe(first);
    expect(second).toEqual({ results: [{ path: 'b.md' }], truncated: false });
    expect(Object.isFrozen(second)).toBe(false);
  });
});
