import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLAN_ENTITLEMENTS } from '../src/domains/accounts/index.ts';
import { ERROR_CODES } from '../src/kernel/error-codes.ts';
import { INVALID_PATH_REASONS } from '../src/kernel/vault-path.ts';
import { HTTP_STATUS } from '../src/surfaces/http/problem.ts';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** Rows of the first Markdown table after `heading`, as arrays of trimmed cells without backticks. */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(heading);
  expect(start, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|').map((cell) => cell.trim().replaceAll('`', '')));
  }
  return rows;
}

describe('published documents match the code', () => {
  it('docs/errors.md lists every error code with its HTTP status, and nothing else', () => {
    const rows = tableAfter(read('docs/errors.md'), '## Catalogue');
    expect(rows.map(([code, status]) => [code, Number(status)])).toEqual(
      Object.keys(ERROR_CODES).map((code) => [code, HTTP_STATUS[code as keyof typeof ERROR_CODES]]),
    );
  });

  it('docs/notes.md lists every reason an invalid_path carries, in order, and nothing else', () => {
    const rows = tableAfter(read('docs/notes.md'), '## Path rules');
    expect(rows.flatMap(([reasons]) => reasons!.split(', '))).toEqual([...INVALID_PATH_REASONS]);
  });

  it('docs/plans.md shows exactly the entitlements of src/domains/accounts/plans.ts', () => {
    const rows = tableAfter(read('docs/plans.md'), '| entitlement |');
    const plans = ['free', 'developer', 'team'] as const;
    const fromDocs = Object.fromEntries(rows.map(([name, ...values]) => [name, values]));
    const fromCode = Object.fromEntries(
      Object.keys(PLAN_ENTITLEMENTS.free).map((name) => [
        name,
        plans.map((plan) => String(PLAN_ENTITLEMENTS[plan][name as keyof (typeof PLAN_ENTITLEMENTS)['free']])),
      ]),
    );
    expect(fromDocs).toEqual(fromCode);
  });

  it('the README keeps the two-command quick start', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });
});
