/**
 * `npm run eval:education [-- --only ID] [--report]`: the education quality evaluation suite (spec 1.10; README.md).
 *
 * Offline (the default): validates every fixture, then starts the fake model server and an in-process gateway on a
 * fresh embedded database, and runs every scenario over HTTP with the fake scripted with the scenario's canned model
 * answers. With SERVICE_EDUCATION_EVAL_LIVE=1 it runs the same scenarios against the model the KGATE_MODEL_*
 * variables configure (src/config-model.ts) and writes a report (Markdown and JSON) under eval/education/reports/;
 * `--report` writes one offline too. Exits 1 when a fixture is invalid or a check fails, 2 when it cannot run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openDatabase } from '../../src/app/database.ts';
import { startGateway, type Gateway } from '../../src/app/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { parseModelConfig } from '../../src/config-model.ts';
import { createLogger } from '../../src/logger.ts';
import { modelEnvOf, startModelFake, type ModelFake } from '../../test/fakes/model/index.ts';
import { runScenario, type ScenarioRun } from './execute.ts';
import { buildReport, reportMarkdown, reportSummary } from './report.ts';
import { evalOperations, evalToken, prepareEvalChain, type EvalTarget } from './target.ts';
import { validateFixtures } from './validate.ts';

const REPORT_DIR = fileURLToPath(new URL('./reports/', import.meta.url));

/** The KGATE_MODEL_* variables of this process: the live run's model, and nothing else of its environment. */
function liveModelEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('KGATE_MODEL_') && entry[1] !== undefined && entry[1] !== ''));
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { only: { type: 'string', multiple: true }, report: { type: 'boolean', default: false } } });
  const live = process.env.SERVICE_EDUCATION_EVAL_LIVE === '1';

  const validation = validateFixtures();
  for (const fixture of validation.fixtures) {
    for (const problem of fixture.problems) process.stderr.write(`invalid fixture ${fixture.file}: ${problem}\n`);
    for (const note of fixture.notes) process.stderr.write(`note ${fixture.file}: ${note}\n`);
  }
  for (const problem of validation.problems) process.stderr.write(`invalid suite: ${problem}\n`);
  if (!validation.ok) return 1;
  const scenarios = validation.scenarios.filter((s) => !values.only || values.only.includes(s.id) || values.only.includes(s.workflow));
  if (scenarios.length === 0) {
    process.stderr.write('no scenario matches --only\n');
    return 2;
  }

  let fake: ModelFake | undefined;
  let gateway: Gateway | undefined;
  const dataDir = await mkdtemp(join(tmpdir(), 'kgate-eval-'));
  try {
    let modelEnv: Record<string, string>;
    if (live) {
      modelEnv = liveModelEnv();
    } else {
      fake = await startModelFake();
      modelEnv = modelEnvOf(fake);
    }
    const model = parseModelConfig(modelEnv);
    if (!model) {
      process.stderr.write('SERVICE_EDUCATION_EVAL_LIVE=1 needs a configured model: set KGATE_MODEL_BASE_URL and the other KGATE_MODEL_* variables (docs/models.md).\n');
      return 2;
    }
    const config = loadConfig({ PORT: '0', KGATE_DATA_DIR: dataDir, KGATE_SHUTDOWN_GRACE_MS: '2000', ...modelEnv });
    const opened = await openDatabase(config, 'kgate-eval');
    gateway = await startGateway(config, opened, { logger: createLogger('error', process.stderr), operations: evalOperations() });
    const credentials = await prepareEvalChain(gateway.services);
    const target: EvalTarget = {
      url: gateway.url,
      token: await evalToken(gateway.url, credentials),
      prices: model.prices,
      // Receipts name the configured models (the model port's identity), whatever dated name a provider answers with.
      expectedModel: { chat: model.chatModel, image: model.imageModel },
    };
    process.stderr.write(`running ${scenarios.length} scenarios ${live ? `against ${model.chatModel}` : 'against the fake model'}\n`);
    const runs: ScenarioRun[] = [];
    for (const scenario of scenarios) {
      // Tokens live 15 minutes; a slow live run asks for a fresh one per scenario.
      if (live) target.token = await evalToken(gateway.url, credentials);
      runs.push(await runScenario(target, scenario, fake));
    }
    const report = buildReport(runs, { mode: live ? 'live' : 'offline', model: { chat: model.chatModel, image: model.imageModel }, prices: model.prices });
    process.stdout.write(`${reportSummary(report)}\n`);
    if (live || values.report) {
      await mkdir(REPORT_DIR, { recursive: true });
      const stem = join(REPORT_DIR, `education-eval-${report.mode}-${report.generatedAt.replace(/[:.]/g, '-')}`);
      await writeFile(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
      await writeFile(`${stem}.md`, reportMarkdown(report));
      process.stderr.write(`report: ${stem}.md and .json\n`);
    }
    return report.passed ? 0 : 1;
  } finally {
    await gateway?.stop();
    await fake?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`eval:education could not run: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
