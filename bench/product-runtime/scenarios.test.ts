import { describe, expect, it } from 'vitest';
import type autocannon from 'autocannon';
import { backendSecondsBetween } from './backend-cpu.ts';
import { roundOrder } from './measure.ts';
import { PAIRS, ROW_KEYS, rowScenario, type PublishCounters } from './scenarios.ts';
import type { RuntimeInstallation } from './setup.ts';

const target: RuntimeInstallation = {
  accountId: '00000000-0000-4000-8000-000000000001',
  token: 'kgp_test',
  mappingId: '00000000-0000-4000-8000-000000000002',
  workspaceId: '00000000-0000-4000-8000-000000000003',
  vaultId: '00000000-0000-4000-8000-000000000004',
  seeded: 20,
  organizationId: '00000000-0000-4000-8000-000000000005',
  principalId: '00000000-0000-4000-8000-000000000006',
  clientSecret: 'kgcs_test',
};

describe('the Product Runtime benchmark rows', () => {
  it('swaps the two rows of every pair on odd rounds, so neither always runs first', () => {
    expect(roundOrder(0)).toEqual([...ROW_KEYS]);
    const odd = roundOrder(1);
    expect([...odd].sort()).toEqual([...ROW_KEYS].sort());
    for (const pair of PAIRS) {
      expect(roundOrder(0).indexOf(pair.baseline)).toBeLessThan(roundOrder(0).indexOf(pair.runtime));
      expect(odd.indexOf(pair.runtime)).toBeLessThan(odd.indexOf(pair.baseline));
    }
  });

  it('publishes each request at a path and with an Idempotency-Key of its own, across rounds', () => {
    const counters: PublishCounters = { devPublish: 0, runtimePublish: 0 };
    const seen = new Set<string>();
    for (const round of [0, 1]) {
      for (const key of ['devPublish', 'runtimePublish'] as const) {
        const scenario = rowScenario(key, target, 'kgrp_test', 'run1', counters);
        const template = scenario.options.requests![0]!;
        const setup = template.setupRequest;
        if (typeof setup !== 'function') throw new Error('a publishing row builds each request');
        for (let k = 0; k < 3; k++) {
          const request = setup({ ...template }, {}) as autocannon.Request & { headers: Record<string, string> };
          const body = JSON.parse(String(request.body)) as { path: string; dryRun: boolean; mappingId?: string };
          expect(body.dryRun).toBe(false);
          expect(body.mappingId === undefined).toBe(key === 'runtimePublish');
          expect(seen.has(body.path)).toBe(false);
          expect(seen.has(request.headers['idempotency-key']!)).toBe(false);
          seen.add(body.path).add(request.headers['idempotency-key']!);
        }
        expect(scenario.built!()).toBe(3 * (round + 1));
      }
    }
  });

  it('sends the runtime rows with the version header and the runtime token, the others without', () => {
    const counters: PublishCounters = { devPublish: 0, runtimePublish: 0 };
    const read = rowScenario('runtimeRead', target, 'kgrp_test', 'run1', counters);
    expect(read.options.headers).toMatchObject({ authorization: 'Bearer kgrp_test', 'x-service-runtime-version': '1' });
    expect(read.options.path).toBe(`/workspaces/${target.workspaceId}/vaults/${target.vaultId}/notes/content?path=Projects%2FOffline%20Sync.md`);
    expect(rowScenario('devRead', target, 'kgrp_test', 'run1', counters).options.headers).toEqual({ authorization: 'Bearer kgp_test' });
    expect(rowScenario('grant', target, '', 'run1', counters).options.body).toContain('grant_type=client_credentials');
  });

  it("counts each backend's growth and a new backend whole, and leaves out one that ended", () => {
    const before = new Map([
      ['10', 1.0],
      ['11', 2.0],
    ]);
    const after = new Map([
      ['10', 1.5],
      ['12', 0.25],
    ]);
    expect(backendSecondsBetween(before, after)).toBeCloseTo(0.75);
  });
});
