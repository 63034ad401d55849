/**
 * Shared by the education projection tests: the golden fixtures (test/fixtures/education/projection), a seeded
 * shuffle of every input list, a generated input with every kind of finding in bulk, and inputs of an exact size.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import type { ProjectionInputSchema } from '../../src/domains/education/projection/index.ts';
import { seededRandom } from './seeded-random.ts';

export { seededRandom };

/** A projection request as a caller writes it. */
export type ProjectionRequest = z.input<typeof ProjectionInputSchema>;

/** Where the golden files are. */
export const GOLDEN_DIR = fileURLToPath(new URL('../fixtures/education/projection/', import.meta.url));

/** The golden cases: each `<name>.input.json` with its `<name>.expected.json`. */
export function goldenCases(): Array<{ name: string; input: ProjectionRequest; expectedPath: string }> {
  return readdirSync(GOLDEN_DIR)
    .filter((file) => file.endsWith('.input.json'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.input.json'.length);
      return {
        name,
        input: JSON.parse(readFileSync(`${GOLDEN_DIR}${file}`, 'utf8')) as ProjectionRequest,
        expectedPath: `${GOLDEN_DIR}${name}.expected.json`,
      };
    });
}

/** The golden text of an output: two-space JSON and a final newline. */
export function goldenText(output: unknown): string {
  return `${JSON.stringify(output, null, 2)}\n`;
}

/** A shuffled copy of a list (Fisher-Yates). */
export function shuffled<T>(list: readonly T[], random: () => number): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** The same object with its keys in another order, at every depth (lists keep their order). */
function reordered(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => reordered(item, random));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(shuffled(Object.entries(value), random).map(([key, inner]) => [key, reordered(inner, random)]));
}

const LISTS = ['courses', 'standards', 'learningTargets', 'artifacts', 'evidence', 'relationships'] as const;

/** The request with every list shuffled and the keys of every object reordered. */
export function shuffledRequest(request: ProjectionRequest, random: () => number): ProjectionRequest {
  const copy: Record<string, unknown> = { ...request };
  for (const list of LISTS) {
    const items: readonly unknown[] | undefined = request[list];
    if (items) copy[list] = shuffled(items, random);
  }
  return reordered(copy, random) as ProjectionRequest;
}

/**
 * A generated input with findings of every kind in bulk (more than the 1,000 answered): targets aligned or not,
 * standards, artifacts with and without evidence, duplicates, dangling and unsourced relationships, prerequisite cycles.
 */
export function generatedRequest(seed: number, size = 400): ProjectionRequest {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const provenance = (i: number) => (random() < 0.9 ? { system: pick(['sis', 'lms', 'map']), record: `r/${i}`, assertedAt: '2024-01-01T00:00:00Z' } : undefined);
  const standards = Array.from({ length: size }, (_, i) => ({ id: `std:${i}`, framework: pick(['F1', 'F2']), code: `C.${i % Math.floor(size * 0.9)}` }));
  const targets = Array.from({ length: size }, (_, i) => ({ id: `lt:${i}`, statement: `Target ${i % Math.floor(size * 0.95)}` }));
  const artifacts = Array.from({ length: size }, (_, i) => ({ id: `art:${i}`, ...(random() < 0.2 ? { contentHash: `sha256:${String(i % 7).repeat(64)}` } : {}) }));
  const evidence = Array.from({ length: size }, (_, i) => ({ id: `ev:${i}`, observedAt: new Date(Date.UTC(2023, 0, 1) + Math.floor(random() * 800) * 86_400_000).toISOString() }));
  const relationships: NonNullable<ProjectionRequest['relationships']> = [];
  let n = 0;
  const relate = (kind: NonNullable<ProjectionRequest['relationships']>[number]['kind'], from: string, to: string) => {
    const source = provenance((n += 1));
    relationships.push({ kind, from, to, ...(source ? { provenance: source } : {}) });
  };
  for (let i = 0; i < size; i += 1) {
    if (random() < 0.6) relate('aligns-to', `lt:${i}`, `std:${Math.floor(random() * size * 1.02)}`);
    if (random() < 0.5) relate('assesses', `art:${i}`, `lt:${Math.floor(random() * size)}`);
    if (random() < 0.3) relate('aligns-to', `art:${i}`, `std:${Math.floor(random() * size)}`);
    if (random() < 0.7) relate('evidences', `ev:${i}`, `art:${Math.floor(random() * size)}`);
    if (random() < 0.3) relate('prerequisite-of', `lt:${i}`, `lt:${Math.floor(random() * size)}`);
    if (random() < 0.05) relate('derived-from', `art:${i}`, `art:${Math.floor(random() * size)}`);
    if (random() < 0.02) relate('evidences', `art:${i}`, `std:${i}`);
    // A few prerequisite cycles of three, for certain.
    if (i % 50 === 0 && i + 2 < size) for (const k of [0, 1, 2]) relate('prerequisite-of', `lt:${i + k}`, `lt:${i + ((k + 1) % 3)}`);
  }
  return { asOf: '2025-01-01T00:00:00Z', standards, learningTargets: targets, artifacts, evidence, relationships };
}

/** A projection request whose compact JSON is exactly `bytes` long: learning targets with statements of ASCII. */
export function requestOfSize(bytes: number): ProjectionRequest {
  const statementLength = 2_000;
  const make = (count: number): ProjectionRequest => ({
    asOf: '2025-01-01T00:00:00Z',
    learningTargets: Array.from({ length: count }, (_, i) => ({ id: `lt:${i}`, statement: 'x'.repeat(statementLength) })),
  });
  const size = (request: ProjectionRequest) => Buffer.byteLength(JSON.stringify(request), 'utf8');
  // Enough whole targets to pass the size, then the surplus taken off the last statements (ASCII: a byte a character).
  const perTarget = size(make(2)) - size(make(1));
  const request = make(Math.ceil((bytes - size(make(0))) / perTarget) + 1);
  let surplus = size(request) - bytes;
  for (let k = request.learningTargets!.length - 1; surplus > 0 && k >= 0; k -= 1) {
    const target = request.learningTargets![k]!;
    const cut = Math.min(surplus, target.statement.length - 1);
    target.statement = target.statement.slice(0, target.statement.length - cut);
    surplus -= cut;
  }
  if (size(request) !== bytes) throw new Error(`requestOfSize: made ${size(request)} bytes, not ${bytes}`);
  return request;
}
