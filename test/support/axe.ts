import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations of the page: each rule's id, impact and how many elements break it. */
export async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string | null; nodes: number }>> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(`axe.run(document).then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`);
}

/** No serious or critical violation on the page: the workspace's bar (docs/workspace.md). */
export async function expectAccessible(page: Page): Promise<void> {
  const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${page.url()}: ${JSON.stringify(serious)}`).toEqual([]);
}
