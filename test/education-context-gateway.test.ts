import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EDUCATION_CONTEXT_ERRORS, EducationContextField } from '../src/domains/education/context/index.ts';
import { RUNTIME_CREDENTIALS, defineOperation } from '../src/surfaces/operations/operation.ts';
import { OPERATIONS } from '../src/surfaces/operations/table.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import { callRuntime, createRuntimeChain, runtimeToken, type RuntimeChainSetup } from './support/runtime-gateway.ts';

// The education context packet on the wire: a probe operation embeds `context: EducationContextField` as the
// generation endpoints will (issue 21), and the Product Runtime answers the packet's own codes with 422 and the
// structure's with 400, in a V1 error envelope, metering the call and storing nothing else.

const PATH = '/api/product/v1/intelligence/education/context-probe';
const CORPUS = new URL('./fixtures/education/context-packets/', import.meta.url);
const fixture = (folder: string, name: string): unknown => JSON.parse(readFileSync(new URL(`${folder}/${name}`, CORPUS), 'utf8'));

/** A probe taking the packet as issue 21's endpoints will: answers what it was given, as counts only. */
const probe = defineOperation({
  id: 'probeEducationContext',
  summary: 'Probe of the education context packet',
  description: 'Test-only: accepts an optional education context packet and answers how many support categories it held.',
  tags: ['runtime', 'education'],
  input: z.strictObject({ goal: z.string().min(1).max(40), context: EducationContextField }),
  output: z.strictObject({ contextGiven: z.boolean(), supports: z.int() }),
  errors: EDUCATION_CONTEXT_ERRORS,
  credentials: RUNTIME_CREDENTIALS,
  scope: 'runtime',
  allowance: 'operation',
  idempotency: 'none',
  product: [
    { method: 'POST', path: PATH, operationId: 'probeEducationContext', kind: 'service.education-context-probe', capability: 'education.context-probe', needs: 'intelligence.execute' },
  ],
  run(_ctx, input) {
    return Promise.resolve({ contextGiven: input.context !== undefined, supports: input.context?.supports?.length ?? 0 });
  },
});

/** Every table's row count and digest, to show that a call changed nothing but the metered count. */
async function tableDigests(gateway: TestGateway): Promise<Map<string, string>> {
  const tables = await gateway.db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const digests = new Map<string, string>();
  for (const { name } of tables) {
    const [row] = await gateway.db.query<{ digest: string }>(
      `SELECT count(*)::text || ':' || coalesce(md5(string_agg(md5(t::text), ',' ORDER BY md5(t::text))), '') AS digest FROM "${name}" t`,
    );
    digests.set(name, row!.digest);
  }
  return digests;
}

describe('the education context packet through the Product Runtime', () => {
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  beforeAll(async () => {
    gateway = await startTestGateway({ operations: [...OPERATIONS, probe] });
    chain = await createRuntimeChain(gateway, 'context', { scopes: ['intelligence.execute'] });
    token = await runtimeToken(gateway, chain);
  });
  afterAll(() => gateway.stop());

  const call = (json: unknown) => callRuntime<{ contextGiven: boolean; supports: number }>(gateway, token, 'POST', PATH, { json });

  it('accepts a request without a packet (backward compatible) and with an acceptable one', async () => {
    const without = await call({ goal: 'plan a lesson' });
    expect(without.status, JSON.stringify(without.body)).toBe(200);
    expect(without.body.data).toEqual({ contextGiven: false, supports: 0 });
    const packet = fixture('acceptable', 'multiple-categories-full.json');
    const withPacket = await call({ goal: 'plan a lesson', context: packet });
    expect(withPacket.status, JSON.stringify(withPacket.body)).toBe(200);
    expect(withPacket.body.data).toEqual({ contextGiven: true, supports: 5 });
  });

  it('refuses each kind of unacceptable packet with its code and status, storing nothing but the metered call', async () => {
    const cases: Array<[string, number, string]> = [
      ['learner_specific_content--named_learner--maria-has-an-iep.json', 422, 'learner_specific_content'],
      ['learner_specific_content--email_address--family-contact.json', 422, 'learner_specific_content'],
      ['group_too_small--count--support-of-four.json', 422, 'group_too_small'],
      ['group_too_small--small_group_count--three-students.json', 422, 'group_too_small'],
      ['invalid_request--version--two.json', 400, 'invalid_request'],
      ['invalid_request--unknown-field--student-names.json', 400, 'invalid_request'],
      ['invalid_request--size--over-8192-bytes.json', 400, 'invalid_request'],
    ];
    expect(cases.every(([name]) => readdirSync(new URL('unacceptable/', CORPUS)).includes(name))).toBe(true);
    for (const [name, status, code] of cases) {
      const before = await tableDigests(gateway);
      const used = await usageOf(gateway, chain.organization.id);
      const answer = await call({ goal: 'plan a lesson', context: fixture('unacceptable', name) });
      const problem = expectRuntimeProblem(answer, status, code);
      if (status === 422) expect(problem.details, name).toMatchObject({ fields: expect.any(Array) });
      // The refusal never carries the packet's text back.
      expect(JSON.stringify(answer.body), name).not.toMatch(/Maria|jsmith|glossaries|Decodable/);
      const after = await tableDigests(gateway);
      const changed = [...before.keys()].filter((table) => before.get(table) !== after.get(table));
      expect(changed, name).toEqual(['runtime_usage']);
      expect(await usageOf(gateway, chain.organization.id), name).toBe(used + 1);
    }
  });

  it('names the field inside the packet for a structural problem', async () => {
    const answer = await call({ goal: 'plan a lesson', context: { kind: 'partner.education-context', version: 1, supports: [{ category: 'reading_support', learnerCount: 6, note: '' }] } });
    const problem = expectRuntimeProblem(answer, 400, 'invalid_request');
    expect(problem.details).toMatchObject({ issues: [{ path: 'context.supports.0.note' }] });
  });
});
