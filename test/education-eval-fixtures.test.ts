/**
 * The education quality evaluation suite (eval/education, spec 1.10) in the normal test run: the offline fixture
 * validation, each check shown to pass on a good answer and to fail on a bad one, and the scenarios whose endpoints
 * the gateway serves run end to end over HTTP against the fake model server with their canned answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../eval/education/execute.ts';
import { EVAL_ENDPOINTS } from '../eval/education/endpoints.ts';
import { evalOperations, evalToken, prepareEvalChain, type EvalTarget } from '../eval/education/target.ts';
import { validateFixtures } from '../eval/education/validate.ts';
import { modelEnvOf, startModelFake, type ModelFake } from './fakes/model/index.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

describe('education evaluation fixtures', () => {
  it('every fixture is valid and the eight workflows have one scenario each', () => {
    const report = validateFixtures();
    expect(report.problems).toEqual([]);
    expect(report.fixtures.filter((f) => f.problems.length > 0)).toEqual([]);
    expect(report.scenarios).toHaveLength(8);
  });
});

describe('education evaluation suite end to end against the fake model', () => {
  let fake: ModelFake;
  let gateway: TestGateway;
  let target: EvalTarget;

  beforeAll(async () => {
    fake = await startModelFake();
    gateway = await startTestGateway({ env: modelEnvOf(fake), operations: evalOperations() });
    const credentials = await prepareEvalChain(gateway.services);
    target = {
      url: gateway.url,
      token: await evalToken(gateway.url, credentials),
      prices: { inputMicrodollarsPerToken: 1, outputMicrodollarsPerToken: 2, imageMicrodollars: 40_000 },
      expectedModel: { chat: fake.chatModel, image: fake.imageModel },
    };
  });
  afterAll(async () => {
    await gateway?.stop();
    await fake?.close();
  });

  it('runs every served scenario with every check passing', async () => {
    const served = new Set(evalOperations().flatMap((op) => (op.product ?? []).map((binding) => binding.path)));
    const scenarios = validateFixtures().scenarios.filter((s) => served.has(EVAL_ENDPOINTS[s.endpoint].path));
    expect(scenarios).toHaveLength(8);
    for (const scenario of scenarios) {
      const run = await runScenario(target, scenario, fake);
      expect({ id: run.id, failed: run.checks.filter((c) => c.status === 'fail') }).toEqual({ id: scenario.id, failed: [] });
      expect(run.modelRequests).toBe(scenario.model.replies.length);
      expect(run.contentType).toMatch(scenario.stream ? /^application\/x-ndjson/ : /^application\/json/);
    }
  });
});
