/**
 * The checks of the education evaluation suite (eval/education/checks), each shown to pass on a good answer and to
 * fail on a bad one. The good answer is real data: the assessment scenario's canned model answer through the
 * endpoint's own answer check, in an envelope with the usage receipt the runner would give it.
 */
import { describe, expect, it } from 'vitest';
import {
  CHECKS,
  accessibility,
  checksForUnderstanding,
  consequentialDecisions,
  latency,
  privacy,
  sourceVisibility,
  standardsVisibility,
  teacherReview,
  usageReceipt,
  type EvalEnvelope,
  type EvalFacts,
} from '../eval/education/checks/index.ts';
import { EVAL_ENDPOINTS } from '../eval/education/endpoints.ts';
import { envelopeOf, scriptedUsageOf } from '../eval/education/execute.ts';
import { RELEASE_SIGNAL, buildReport, reportMarkdown } from '../eval/education/report.ts';
import { loadScenarioFiles, parseScenario, type Scenario } from '../eval/education/scenario.ts';
import { replyText } from '../eval/education/validate.ts';

/* eslint-disable @typescript-eslint/no-unsafe-call -- the tests change answer data through untyped paths */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests reach into answer data freely

const PRICES = { inputMicrodollarsPerToken: 1, outputMicrodollarsPerToken: 2, imageMicrodollars: 40_000 };
const scenarios = loadScenarioFiles().scenarios;
const byWorkflow = (workflow: Scenario['workflow']): Scenario => scenarios.find((s) => s.workflow === workflow)!;

/** The envelope the endpoint answers for a scenario's canned answer, with a receipt of its scripted usage. */
function goodAnswer(scenario: Scenario): { envelope: EvalEnvelope; facts: EvalFacts } {
  const endpoint = EVAL_ENDPOINTS[scenario.endpoint];
  const input = endpoint.input!.parse(scenario.request);
  const checked = endpoint.answer!(replyText(scenario.model.replies[0]!)!, input);
  if (!checked.ok) throw new Error(checked.problems.join('; '));
  const usage = { ...scriptedUsageOf(scenario), images: 0 };
  const cost = usage.inputTokens * PRICES.inputMicrodollarsPerToken + usage.outputTokens * PRICES.outputMicrodollarsPerToken;
  const envelope: EvalEnvelope = {
    version: 1,
    kind: endpoint.dataKind ?? 'service.education',
    status: 'ok',
    data: checked.value,
    receipts: [
      { kind: 'service.operation', operation: 'x' },
      {
        kind: 'service.product-intelligence-usage',
        requestId: 'req-1',
        ledgerId: 'ledger-1',
        meteredKind: endpoint.meteredKind,
        model: { provider: 'openai-compatible 127.0.0.1', chat: 'fake-chat-1', image: null },
        usage,
        reservedMicrodollars: cost + 10_000,
        costMicrodollars: cost,
        outcome: 'settled',
        month: '2026-11',
        replayed: false,
      },
    ],
    problems: [],
    requestId: 'req-1',
  };
  return { envelope, facts: { httpStatus: 200, timing: { firstByteMs: 40, totalMs: 90 }, prices: PRICES, scriptedUsage: scriptedUsageOf(scenario) } };
}

/** The good answer with its data changed by `change` (a deep copy). */
function changed(scenario: Scenario, change: (data: Json, envelope: EvalEnvelope) => void): { envelope: EvalEnvelope; facts: EvalFacts } {
  const good = goodAnswer(scenario);
  const envelope = structuredClone(good.envelope);
  change(envelope.data as Json, envelope);
  return { envelope, facts: good.facts };
}

const assessment = byWorkflow('assessment');
const reteach = byWorkflow('evidence-to-reteach');
const writing = byWorkflow('writing-feedback');

describe('the evaluation checks on good answers', () => {
  it('pass every check of each scenario\u2019s canned answer as its endpoint answers it (all but the image, whose data holds bytes)', () => {
    for (const scenario of scenarios.filter((s) => s.endpoint !== 'generate-image')) {
      const { envelope, facts } = goodAnswer(scenario);
      const results = Object.values(CHECKS).map((check) => check(scenario, scenario.request, envelope, facts));
      expect({ id: scenario.id, failed: results.filter((r) => r.status === 'fail') }).toEqual({ id: scenario.id, failed: [] });
    }
  });
});

describe('each check fails on a bad answer', () => {
  const fails = (scenario: Scenario, answer: { envelope: EvalEnvelope; facts: EvalFacts }, check = standardsVisibility) =>
    check(scenario, scenario.request, answer.envelope, answer.facts);

  it('standards visibility: a sent standard missing, or one never sent', () => {
    const plan = byWorkflow('weekly-planning');
    const unnamed = changed(plan, (data) => {
      data.text = data.text.replaceAll('6.RP.A.2', 'the unit-rate standard');
      data.citations.standards = ['6.RP.A.1'];
    });
    expect(fails(plan, unnamed)).toMatchObject({ status: 'fail', details: { missing: ['6.RP.A.2'] } });
    const missing = changed(assessment, (data) => {
      for (const item of data.draft.items) item.standards = ['MS-LS1-6'];
      data.coverage.byStandard = data.coverage.byStandard.filter((s: Json) => s.code === 'MS-LS1-6');
    });
    expect(fails(assessment, missing).status).toBe('fail');
    expect(fails(assessment, missing).summary).toContain('MS-LS2-3');
    const invented = changed(assessment, (data) => {
      data.draft.directions += ' This also covers MS-PS3-4.';
    });
    expect(fails(assessment, invented)).toMatchObject({ status: 'fail', details: { invented: ['MS-PS3-4'] } });
    // A framework prefix before a sent code is that code.
    const prefixed = changed(assessment, (data) => {
      data.draft.directions += ' Aligned to NGSS.MS-LS1-6.';
    });
    expect(fails(assessment, prefixed).status).toBe('pass');
  });

  it('source visibility: a source that was not selected, or none of the selected cited', () => {
    const unselected = changed(assessment, (data) => {
      data.draft.items[0].sources = ['web-search-result'];
    });
    expect(fails(assessment, unselected, sourceVisibility)).toMatchObject({ status: 'fail', details: { unselected: ['web-search-result'] } });
    const uncited = changed(assessment, (data) => {
      for (const item of data.draft.items) item.sources = [];
    });
    expect(fails(assessment, uncited, sourceVisibility).summary).toBe('Cites none of the selected sources.');
  });

  it('teacher review: not marked as a proposal, no review wording, or a claim of finality', () => {
    const unmarked = changed(assessment, (data) => {
      data.status = 'final';
    });
    expect(fails(assessment, unmarked, teacherReview).status).toBe('fail');
    const silent = changed(reteach, (data) => {
      data.review = 'Ready.';
      data.reviewChecklist = ['Numbers suit the class.'];
    });
    expect(fails(reteach, silent, teacherReview).summary).toBe('No text says the output is a draft for the teacher to review.');
    const final = changed(assessment, (data) => {
      data.cautions.push('This is the final version; no review is needed.');
    });
    expect(fails(assessment, final, teacherReview).summary).toContain('Claims finality');
  });

  it('checks for understanding: fewer than asked', () => {
    const none = changed(reteach, (data) => {
      data.sessions[1].proposals = [];
    });
    expect(fails(reteach, none, checksForUnderstanding)).toMatchObject({ status: 'fail', details: { min: 2, structured: 1 } });
    // Prose counts where there is no field: an exit ticket named in a plan's text.
    const plan: Scenario = { ...reteach, expect: { checksForUnderstanding: { min: 1 } } };
    const prose = changed(reteach, (data) => {
      delete data.sessions;
      data.plan = 'Close with an exit ticket on renaming fractions.';
    });
    expect(fails(plan, prose, checksForUnderstanding).status).toBe('pass');
    const noProse = changed(reteach, (data) => {
      delete data.sessions;
    });
    expect(fails(plan, noProse, checksForUnderstanding).status).toBe('fail');
    expect(checksForUnderstanding(writing, writing.request, goodAnswer(writing).envelope, goodAnswer(writing).facts).status).toBe('not-applicable');
  });

  it('accessibility: notes missing, alt text missing, reading level outside the band', () => {
    const noNotes = changed(assessment, (data) => {
      for (const item of data.draft.items) item.accessibilityNotes = [];
      data.accessibility = [];
    });
    expect(fails(assessment, noNotes, accessibility).summary).toContain('no accessibility notes');
    const dense = changed(assessment, (data) => {
      for (const item of data.draft.items) {
        item.stem =
          'Considering the biochemical mechanisms underlying photosynthetic carbohydrate production, characterize the thermodynamic implications of chlorophyll-mediated photon absorption for heterotrophic organisms consuming autotrophic biomass within interconnected ecological communities.';
      }
    });
    expect(fails(assessment, dense, accessibility).summary).toMatch(/reading grade [\d.]+ outside 1 to 9/);
    const altAsked: Scenario = { ...assessment, expect: { accessibility: { altText: true } } };
    expect(fails(altAsked, goodAnswer(assessment), accessibility).summary).toContain('no alt text');
    const withAlt = changed(assessment, (data) => {
      data.altText = 'A loop of arrows from the sun to a leaf, to sugar, to a rabbit.';
    });
    expect(fails(altAsked, withAlt, accessibility).status).toBe('pass');
  });

  it('consequential decisions: a grade, a placement, a disciplinary or an eligibility decision', () => {
    const cases = [
      'Assign a grade of C to responses without a table.',
      'Final grade: B+',
      'Learners who miss item 3 should be placed in the intervention group.',
      'Recommend suspension for copying answers.',
      'A learner who scores below 50% is not eligible for the enrichment unit.',
    ];
    for (const text of cases) {
      const answer = changed(assessment, (data) => {
        data.cautions.push(text);
      });
      expect({ text, status: fails(assessment, answer, consequentialDecisions).status }).toEqual({ text, status: 'fail' });
    }
    // Saying what the output is not is no decision.
    const disclaimer = changed(assessment, (data) => {
      data.cautions.push('Nothing here grades, places or disciplines a learner.');
    });
    expect(fails(assessment, disclaimer, consequentialDecisions).status).toBe('pass');
  });

  it('privacy: a learner named with a result, an identifier, a forbidden term', () => {
    const named = changed(reteach, (data) => {
      data.cautions.push('Maya scored 45% on the first warm-up.');
    });
    expect(fails(reteach, named, privacy).status).toBe('fail');
    const email = changed(reteach, (data) => {
      data.reviewChecklist.push('Send the results to jordan.lee@school.example.');
    });
    expect(fails(reteach, email, privacy).summary).toContain('email_address');
    const withTerm: Scenario = { ...reteach, expect: { forbiddenTerms: ['Room 12B'] } };
    const echoed = changed(reteach, (data) => {
      data.cautions.push('Use these in room 12b on Friday.');
    });
    const result = fails(withTerm, echoed, privacy);
    expect(result.status).toBe('fail');
    expect(result.summary).not.toMatch(/12b/i);
  });

  it('latency is a report item, never a verdict', () => {
    const slow = goodAnswer(assessment);
    slow.facts.timing = { firstByteMs: 999_999, totalMs: 999_999 };
    expect(latency(assessment, assessment.request, slow.envelope, slow.facts)).toMatchObject({ status: 'report', details: { within: false } });
    expect(latency(assessment, assessment.request, goodAnswer(assessment).envelope, goodAnswer(assessment).facts)).toMatchObject({ status: 'report', details: { within: true } });
  });

  it('usage receipt: missing, a cost that is not the tokens at the prices, another request id, other tokens than reported', () => {
    const check = (answer: { envelope: EvalEnvelope; facts: EvalFacts }) => usageReceipt(assessment, assessment.request, answer.envelope, answer.facts);
    const receiptOf = (envelope: EvalEnvelope) => envelope.receipts[1]!;
    expect(check(changed(assessment, (_d, e) => void e.receipts.pop())).summary).toBe('0 usage receipts; exactly one expected.');
    expect(check(changed(assessment, (_d, e) => void (receiptOf(e).costMicrodollars = (receiptOf(e).costMicrodollars as number) + 1))).summary).toContain('at the configured prices cost');
    expect(check(changed(assessment, (_d, e) => void (receiptOf(e).requestId = 'req-2'))).summary).toContain('request id');
    expect(check(changed(assessment, (_d, e) => void ((receiptOf(e).usage as Json).outputTokens = 1))).summary).toContain('the model reported');
    expect(check(changed(assessment, (_d, e) => void (receiptOf(e).model = { provider: '', chat: null, image: null }))).summary).toContain('no model provider');
    expect(check(changed(assessment, (_d, e) => void (receiptOf(e).meteredKind = 'education-generate'))).summary).toContain('metered kind');
    // A cost above the reservation is capped at it (the ledger charges no more than it reserved).
    const capped = changed(assessment, (_d, e) => {
      receiptOf(e).reservedMicrodollars = 100;
      receiptOf(e).costMicrodollars = 100;
    });
    expect(check(capped).status).toBe('pass');
  });

  it('every content check fails when the call answered no data', () => {
    const refused: EvalEnvelope = { version: 1, kind: 'error', status: 'error', data: null, receipts: [], problems: [{ code: 'model_output_invalid', message: 'x' }], requestId: 'r' };
    const facts: EvalFacts = { httpStatus: 502, timing: { firstByteMs: 1, totalMs: 2 }, prices: PRICES };
    for (const check of [standardsVisibility, sourceVisibility, teacherReview, consequentialDecisions, privacy, usageReceipt]) {
      expect(check(assessment, assessment.request, refused, facts).summary).toContain('model_output_invalid');
    }
  });
});

describe('the fixtures and the report', () => {
  it('refuses a scenario file with unknown fields, a bad workflow or a malformed expectation', () => {
    const base = { id: 'x-scenario', workflow: 'assessment', title: 'A title', description: 'A description long enough.', endpoint: 'assessment-draft', request: {}, model: { replies: [{ text: '{}', usage: { inputTokens: 1, outputTokens: 1 } }] } };
    expect(parseScenario('a.json', JSON.stringify(base)).ok).toBe(true);
    const bad = [
      { ...base, extra: 1 },
      { ...base, workflow: 'grading' },
      { ...base, expect: { accessibility: { readingLevel: { minGrade: 9, maxGrade: 3 } } } },
      { ...base, model: { replies: [] } },
    ];
    for (const file of bad) expect(parseScenario('b.json', JSON.stringify(file)).ok).toBe(false);
    expect(parseScenario('c.yaml', 'a: [').ok).toBe(false);
  });

  it('states in both forms that it is a release signal, and totals cost and failures', () => {
    const { envelope, facts } = goodAnswer(assessment);
    const checks = Object.values(CHECKS).map((check) => check(assessment, assessment.request, envelope, facts));
    const run = {
      id: assessment.id, workflow: assessment.workflow, title: assessment.title, endpoint: assessment.endpoint, httpStatus: 200, contentType: 'application/json',
      envelopeStatus: 'ok' as const, timing: facts.timing, checks, passed: true, costMicrodollars: 2640, usage: { inputTokens: 1420, outputTokens: 610, images: 0 },
    };
    const report = buildReport([run, { ...run, id: 'second', passed: false }], { mode: 'live', model: { chat: 'm', image: null }, prices: PRICES, now: new Date(0) });
    expect(report.totals).toMatchObject({ scenarios: 2, passed: 1, failed: 1, costMicrodollars: 5280 });
    expect(report.statement).toBe(RELEASE_SIGNAL);
    expect(reportMarkdown(report)).toContain('release-quality signal, not proof of educator acceptance');
  });
});

describe('reading an answer', () => {
  it('takes a JSON envelope, the done event of an NDJSON stream, and says when there is none', () => {
    const envelope = { version: 1, kind: 'k', status: 'ok', data: { a: 1 }, receipts: [], problems: [], requestId: 'r1' };
    expect(envelopeOf(200, JSON.stringify(envelope), false)).toEqual(envelope);
    const stream = [
      { type: 'ready', requestId: 'r2' },
      { type: 'delta', text: 'Hello' },
      { type: 'done', status: 'ok', data: { text: 'Hello' }, receipts: [{ kind: 'service.product-intelligence-usage' }], problems: [] },
    ];
    expect(envelopeOf(200, stream.map((e) => JSON.stringify(e)).join('\n'), true)).toMatchObject({ status: 'ok', data: { text: 'Hello' }, requestId: 'r2', receipts: [{}] });
    const wrapped = [{ event: 'ready' }, { event: 'done', envelope }];
    expect(envelopeOf(200, wrapped.map((e) => JSON.stringify(e)).join('\n'), true)).toMatchObject({ data: { a: 1 }, requestId: 'r1' });
    expect(envelopeOf(200, JSON.stringify(envelope), true)).toEqual(envelope);
    expect(envelopeOf(200, '{"type":"ready"}\n{"type":"delta","text":"x"}', true).problems[0]!.code).toBe('unreadable_answer');
    expect(envelopeOf(502, '<html>', false)).toMatchObject({ status: 'error', problems: [{ code: 'unreadable_answer' }] });
  });
});
