/**
 * The suite's report: per scenario, every check's result, latency and cost; in Markdown for people and JSON for
 * tools. Both carry the sentence that the suite is a release-quality signal, not proof of educator acceptance.
 */
import type { PriceTable } from '../../src/domains/models/index.ts';
import { CHECK_IDS } from './checks/index.ts';
import type { ScenarioRun } from './execute.ts';

/** What every report says of itself (spec 1.10). */
export const RELEASE_SIGNAL =
  'This evaluation is a release-quality signal, not proof of educator acceptance: it checks what can be checked ' +
  'mechanically over eight fixed scenarios; whether the drafts help teachers is for educators to judge.';

/** A whole run. */
export interface EvalReport {
  generatedAt: string;
  mode: 'offline' | 'live';
  /** The configured model's names (never its key or address). */
  model: { chat: string; image: string | null };
  prices: PriceTable;
  statement: string;
  passed: boolean;
  totals: { scenarios: number; passed: number; failed: number; costMicrodollars: number; inputTokens: number; outputTokens: number; images: number };
  scenarios: ScenarioRun[];
}

/** Builds the report of a run. */
export function buildReport(runs: ScenarioRun[], facts: { mode: EvalReport['mode']; model: EvalReport['model']; prices: PriceTable; now?: Date }): EvalReport {
  const sum = (pick: (run: ScenarioRun) => number | undefined) => runs.reduce((total, run) => total + (pick(run) ?? 0), 0);
  return {
    generatedAt: (facts.now ?? new Date()).toISOString(),
    mode: facts.mode,
    model: facts.model,
    prices: facts.prices,
    statement: RELEASE_SIGNAL,
    passed: runs.every((run) => run.passed),
    totals: {
      scenarios: runs.length,
      passed: runs.filter((run) => run.passed).length,
      failed: runs.filter((run) => !run.passed).length,
      costMicrodollars: sum((run) => run.costMicrodollars),
      inputTokens: sum((run) => run.usage?.inputTokens),
      outputTokens: sum((run) => run.usage?.outputTokens),
      images: sum((run) => run.usage?.images),
    },
    scenarios: runs,
  };
}

const SYMBOL = { pass: 'pass', fail: '**FAIL**', 'not-applicable': 'n/a', report: 'reported' } as const;

function dollars(microdollars: number): string {
  return `$${(microdollars / 1_000_000).toFixed(4)}`;
}

/** The report in Markdown. */
export function reportMarkdown(report: EvalReport): string {
  const lines = [
    `# Education quality evaluation (${report.mode})`,
    '',
    `> ${report.statement}`,
    '',
    `Generated ${report.generatedAt}. Model: ${report.model.chat}${report.model.image ? `, images ${report.model.image}` : ''}. Prices (microdollars): ` +
      `${report.prices.inputMicrodollarsPerToken} per input token, ${report.prices.outputMicrodollarsPerToken} per output token, ${report.prices.imageMicrodollars} per image.`,
    '',
    `**${report.totals.passed} of ${report.totals.scenarios} scenarios passed every check.** Total cost ${dollars(report.totals.costMicrodollars)} ` +
      `(${report.totals.inputTokens} input tokens, ${report.totals.outputTokens} output tokens, ${report.totals.images} images).`,
    '',
    `| Scenario | Endpoint | ${CHECK_IDS.join(' | ')} | First byte | Total | Cost |`,
    `|---|---|${CHECK_IDS.map(() => '---').join('|')}|---:|---:|---:|`,
  ];
  for (const run of report.scenarios) {
    const cells = CHECK_IDS.map((id) => {
      const check = run.checks.find((c) => c.check === id);
      return check ? SYMBOL[check.status] : '';
    });
    lines.push(
      `| ${run.workflow} | ${run.endpoint} | ${cells.join(' | ')} | ${Math.round(run.timing.firstByteMs)} ms | ${Math.round(run.timing.totalMs)} ms | ` +
        `${run.costMicrodollars === undefined ? '-' : dollars(run.costMicrodollars)} |`,
    );
  }
  lines.push('', '## Findings', '');
  for (const run of report.scenarios) {
    lines.push(`### ${run.title} (\`${run.id}\`)`, '', `HTTP ${run.httpStatus}, envelope ${run.envelopeStatus}.`, '');
    for (const check of run.checks) lines.push(`- ${check.check}: ${SYMBOL[check.status]}. ${check.summary}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/** Failed checks, those with the same summary (no answer at all) on one line. */
function failureLines(failed: ScenarioRun['checks']): string[] {
  const bySummary = new Map<string, string[]>();
  for (const check of failed) bySummary.set(check.summary, [...(bySummary.get(check.summary) ?? []), check.check]);
  return [...bySummary].map(([summary, checks]) => `${checks.join(', ')}: ${summary}`);
}

/** A short summary for the terminal: one line a scenario. */
export function reportSummary(report: EvalReport): string {
  const lines = report.scenarios.map((run) => {
    const failed = run.checks.filter((c) => c.status === 'fail');
    return `${run.passed ? 'pass' : 'FAIL'}  ${run.workflow.padEnd(28)} ${run.endpoint.padEnd(17)} ${String(Math.round(run.timing.totalMs)).padStart(6)} ms` +
      (failed.length > 0 ? `\n      ${failureLines(failed).join('\n      ')}` : '');
  });
  lines.push(`${report.totals.passed} passed, ${report.totals.failed} failed`, report.statement);
  return lines.join('\n');
}
