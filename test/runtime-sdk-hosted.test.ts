// The partner SDK as a partner gets it: packed with `npm pack`, installed from the tarball into a scratch project with
// no network, imported by its package name, and run with Node against a started gateway. The scenario: runtime
// context, capabilities, the assigned workspace, a listing, a publication previewed then applied, a read, a stale
// apply refused, a deletion to the trash, the trash listing and a restore. It also runs the packed local adapter.
// A second scenario calls each model-backed education operation once through the packed SDK against the gateway
// configured with the fake model (test/support/runtime-sdk-education-scenario.ts).
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_IMAGE_BYTES, modelEnvOf, startModelFake, type FakeBehavior, type ModelFake } from './fakes/model/index.ts';
import { modelRubric, rubricRequest } from './support/education-rubrics.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { RUNTIME_SDK_EDUCATION_SCENARIO } from './support/runtime-sdk-education-scenario.ts';
import { RUNTIME_SDK_SCENARIO } from './support/runtime-sdk-scenario.ts';

const run = promisify(execFile);
const SDK = fileURLToPath(new URL('../packages/runtime-sdk/', import.meta.url));
const TSC = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));


let gateway: TestGateway;
let fake: ModelFake;
let scratch: string;
let customer: Owner;
let clientId: string;
let clientSecret: string;
/** A second principal of the same installation, holding intelligence.execute, for the education scenario. */
let educationClient: { id: string; secret: string };
let organizationId: string;
/** The private half of the ES256 key registered for the same principal, as a JWK. */
let privateJwk: string;

/**
 * Builds the SDK as its build script does (its tsconfig), packs it with `npm pack`, and installs the tarball into a
 * new project, offline. The build and the pack happen in a staging copy, so that the same file running on both
 * database projects at once never shares packages/runtime-sdk/dist.
 */
async function installPackedSdk(): Promise<{ tarball: string; files: string[] }> {
  const stage = join(scratch, 'sdk');
  await mkdir(stage);
  await run(process.execPath, [TSC, '-p', SDK, '--outDir', join(stage, 'dist')]);
  for (const file of ['package.json', 'README.md']) await copyFile(join(SDK, file), join(stage, file));
  // Its prepack would build again, into the repository's folder: the staging copy is already built.
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], { cwd: stage });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = join(scratch, packed!.filename);
  await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'partner-product', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: scratch });
  return { tarball, files: packed!.files.map((f) => f.path) };
}

/** Creates the chain a partner's product runs on: organization, product, installation, grants, principal, secret. */
async function createRuntimeChain(): Promise<void> {
  const { services } = gateway;
  customer = await createOwner(services, 'sdk-customer');
  const orgAdmin = await createOwner(services, 'sdk-org-admin');
  const organization = await services.runtimeAdmin.createOrganization({ slug: 'sdk-partner', name: 'SDK Partner', adminEmail: orgAdmin.email });
  const product = await services.runtimeAdmin.createProduct(orgAdmin.accountId, organization.id, { slug: 'sdk-tutor', name: 'SDK Tutor', domainPack: 'education' });
  const installation = await services.runtimeAdmin.install(customer.accountId, product.slug);
  await services.runtimeAdmin.assignWorkspace(customer.accountId, installation.id, customer.workspaceId);
  await services.runtimeAdmin.grantVault(customer.accountId, installation.id, customer.mapping.vaultId, 'publish');
  const principal = await services.runtimeCredentials.createPrincipal(orgAdmin.accountId, installation.id, { name: 'sdk-tests', scopes: ['notes.publish'] });
  await services.runtimeAdmin.setOrganizationSettings(organization.slug, { intelligenceBudgetMicrodollarsMonthly: 50_000_000 });
  organizationId = organization.id;
  const education = await services.runtimeCredentials.createPrincipal(orgAdmin.accountId, installation.id, { name: 'sdk-education', scopes: ['intelligence.execute'] });
  educationClient = { id: education.id, secret: (await services.runtimeCredentials.addClientSecret(orgAdmin.accountId, education.id)).secret };
  clientId = principal.id;
  clientSecret = (await services.runtimeCredentials.addClientSecret(orgAdmin.accountId, principal.id)).secret;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await services.runtimeCredentials.addPublicKey(orgAdmin.accountId, principal.id, { jwk: publicKey.export({ format: 'jwk' }), keyId: 'sdk-key-1' });
  privateJwk = JSON.stringify(privateKey.export({ format: 'jwk' }));
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kgate-sdk-partner-'));
  fake = await startModelFake();
  gateway = await startTestGateway({ env: modelEnvOf(fake) });
  await createRuntimeChain();
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
  await fake?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

let installed: Promise<{ tarball: string; files: string[] }> | undefined;
/** The packed SDK, installed once for the file's scenarios. */
function installedSdk(): Promise<{ tarball: string; files: string[] }> {
  installed ??= installPackedSdk();
  return installed;
}

type Json = Record<string, unknown>;
type Step = { status: string; kind: string; data: Json; problems: Array<{ code: string }>; receipts: Json[]; requestId: string };

/** Runs a scenario script in the scratch project with the SDK installed; its steps as printed. */
async function runScenario(name: string, script: string, env: Record<string, string>): Promise<{ stdout: string; steps: Record<string, Step> }> {
  await installedSdk();
  await writeFile(join(scratch, name), script);
  const { stdout } = await run(process.execPath, [name], { cwd: scratch, env: { PATH: process.env.PATH ?? '', KGATE_URL: gateway.url, ...env } });
  return { stdout, steps: JSON.parse(stdout) as Record<string, Step> };
}

describe('the packed runtime SDK against a gateway', () => {
  it('installs from its tarball with nothing to fetch, and runs the scenario by its package name', async () => {
    const { files } = await installedSdk();
    // The package holds its build, its README and its manifest: no sources, no tests.
    expect(files.every((f) => f === 'package.json' || f === 'README.md' || f.startsWith('dist/'))).toBe(true);
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    const manifest = JSON.parse(await readFile(join(scratch, 'node_modules/@kgate/runtime-sdk/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();

    await writeFile(join(scratch, 'scenario.js'), RUNTIME_SDK_SCENARIO);
    const { stdout } = await run(process.execPath, ['scenario.js'], {
      cwd: scratch,
      env: {
        PATH: process.env.PATH ?? '',
        KGATE_URL: gateway.url,
        KGATE_PUBLIC_URL: gateway.baseUrl,
        KGATE_PRIVATE_JWK: privateJwk,
        KGATE_CLIENT_ID: clientId,
        KGATE_CLIENT_SECRET: clientSecret,
        KGATE_WORKSPACE_ID: customer.workspaceId,
        KGATE_VAULT_ID: customer.mapping.vaultId,
        LOCAL_ROOT: join(scratch, 'local-notes'),
      },
    });
    expect(stdout).not.toContain(clientSecret);
    expect(stdout).not.toContain(JSON.parse(privateJwk).d);
    const steps = JSON.parse(stdout) as Record<string, { status: string; kind: string; data: unknown; problems: Array<{ code: string }>; receipts: unknown[] }>;

    expect(steps.context).toMatchObject({ status: 'ok', kind: 'service.runtime-context', data: { adapter: 'hosted', product: { slug: 'sdk-tutor' }, principal: { id: clientId, scopes: ['notes.publish'] } } });
    expect(steps.context!.receipts).toEqual([expect.objectContaining({ kind: 'service.product-runtime-operation' })]);
    expect(steps.capabilities).toMatchObject({ status: 'ok', data: { granted: expect.arrayContaining(['notes.publish', 'notes.list']) } });
    expect(steps.workspace).toMatchObject({ status: 'ok', data: { workspace: { id: customer.workspaceId }, vaults: [{ vaultId: customer.mapping.vaultId, access: 'publish' }] } });
    expect(steps.listBefore).toMatchObject({ status: 'ok', kind: 'service.note-list' });
    expect(steps.preview).toMatchObject({ status: 'ok', kind: 'service.note-transaction', data: { dryRun: true, applied: false, actions: [{ status: 'create' }] } });
    expect(steps.readBeforeApply).toMatchObject({ status: 'error', problems: [{ code: 'not_found' }] });
    expect(steps.apply).toMatchObject({ status: 'ok', data: { dryRun: false, applied: true, actions: [{ status: 'create' }] } });
    expect(steps.read).toMatchObject({ status: 'ok', kind: 'service.note', data: { path: 'SDK/hello.md', content: '# Hello\n\nFrom the packed SDK.\n' } });
    expect(steps.listAfter).toMatchObject({ status: 'ok', data: { notes: expect.arrayContaining([expect.objectContaining({ path: 'SDK/hello.md' })]) } });
    expect(steps.staleApply).toMatchObject({ status: 'error', kind: 'service.problem', problems: [{ code: 'stale_revision' }] });
    expect(steps.update).toMatchObject({ status: 'ok', data: { applied: true, actions: [{ status: 'update' }] } });
    expect(steps.delete).toMatchObject({ status: 'ok', data: { applied: true, actions: [{ status: 'delete' }] } });
    expect(steps.trash).toMatchObject({ status: 'ok', kind: 'service.trash-list', data: { entries: [expect.objectContaining({ originalPath: 'SDK/hello.md' })] } });
    expect(JSON.stringify(steps.trash!.data)).not.toContain('From the packed SDK');
    expect(steps.restore).toMatchObject({ status: 'ok', data: { applied: true, actions: [{ status: 'restore' }] } });
    expect(steps.readRestored).toMatchObject({ status: 'ok', data: { content: '# Hello again\n' } });
    // The projection is served; this principal holds notes.publish only, so the server refuses it for intelligence.execute.
    expect(steps.education).toMatchObject({ status: 'error', problems: [{ code: 'insufficient_scope' }] });

    // private_key_jwt: the SDK's own RFC 7523 assertion, whose audience is the token endpoint at the public base URL.
    expect(steps.keyContext).toMatchObject({ status: 'ok', data: { principal: { id: clientId } } });
    expect(steps.keyWrongAudience).toMatchObject({ status: 'error', problems: [{ code: 'invalid_client' }] });

    expect(steps.local).toMatchObject({ status: 'ok', data: { applied: true } });
    expect(steps.localRead).toMatchObject({ status: 'ok', data: { content: 'local only\n' } });
    expect(steps.localScopes).toMatchObject({ status: 'unavailable', problems: [{ code: 'not_available' }] });

    // What the product published is the customer's note, with provenance naming the product's principal.
    const events = await gateway.services.provenance.listEvents(customer.actor, customer.mapping.id, {});
    const created = events.events.find((e) => e.kind === 'note.created' && e.path === 'SDK/hello.md');
    expect(created).toMatchObject({ credentialKind: 'service_principal', client: 'SDK Tutor' });
  });
  it('calls each model-backed education operation once through the packed SDK, with its receipts, a replay and a retry with the same key', async () => {
    const fixture = (name: string): Json => JSON.parse(readFileSync(new URL(`./fixtures/education/drafts/${name}.json`, import.meta.url), 'utf8')) as Json;
    const reply = (value: unknown): FakeBehavior => ({ kind: 'reply', text: JSON.stringify(value), usage: { inputTokens: 1200, outputTokens: 800 } });
    const brief = {
      type: 'diagram',
      topic: 'the water cycle',
      audience: { gradeBand: '3-5', subject: 'science' },
      style: 'flat-vector',
      orientation: 'landscape',
      palette: 'colorblind-safe',
      requiredElements: ['evaporation arrow', 'cloud', 'rain'],
      exclusions: ['people', 'text labels'],
      altTextIntent: 'the order of the stages',
    };
    const plan = {
      prompt: 'A flat diagram: the sun warms a lake, an evaporation arrow rises to a cloud, and rain falls back into the lake.',
      altText: 'Water rises from a lake as vapour, gathers into a cloud and falls back as rain, in a loop.',
      promptSummary: 'A looped diagram of evaporation, a cloud and rain over a lake.',
    };
    const guidance = {
      ageBand: 'middle',
      course: { title: 'Grade 7 Life Science', subject: 'science' },
      standard: { code: 'MS-LS1-6', statement: 'Construct a scientific explanation of the role of plants in the cycling of matter and flow of energy.' },
      activity: {
        id: 'activity-17',
        state: 'live',
        authoredBy: 'teacher',
        prompt: 'Name the process plants use to turn light energy into chemical energy stored in sugar.',
        answerKey: ['photosynthesis'],
      },
      policy: { version: 'district-guidance-2', forbidAnswerRevelation: true, forbidExternalLinks: true, forbidDirectMessaging: true },
      transcriptVisibleToTeacher: true,
      guidance: 'hint',
      learnerMessage: 'I do not know what it is called.',
    };
    const generate = {
      intent: 'weekly-plan',
      course: { title: 'Grade 6 Mathematics', subject: 'mathematics', gradeBand: '6-8' },
      standards: [
        { code: '6.RP.A.1', statement: 'Understand the concept of a ratio and use ratio language to describe a ratio relationship between two quantities.' },
        { code: '6.RP.A.2', statement: 'Understand the concept of a unit rate associated with a ratio.' },
      ],
      sources: [{ id: 'unit2-reading', title: 'Unit 2 reading', excerpt: 'A ratio compares two quantities.' }],
      request: 'Plan the week with a check for understanding every day.',
    };
    const draft =
      '# Draft weekly plan: ratios (for your review)\n\n' +
      'Aligned to 6.RP.A.1 and 6.RP.A.2, from [source: unit2-reading].\n\n' +
      '## Monday\n- Activity: sort objects and write ratios.\n- Check for understanding: exit ticket.\n\n' +
      'This is a draft for you, the teacher, to review and adapt before use.';
    const requests = {
      generate,
      generateStream: { ...generate, request: 'Plan the week, streamed.' },
      generateAbort: { ...generate, request: 'Plan the week; the product stops reading partway.' },
      practice: fixture('practice-request'),
      assessment: fixture('assessment-request'),
      quality: fixture('quality-request'),
      rubric: rubricRequest(),
      image: { context: 'teach', brief },
      guidance,
    };
    const keys = { practice: randomUUID(), quality: randomUUID(), stream: randomUUID(), abort: randomUUID() };
    // Each operation's valid answer, chosen by our fixed system message; the first quality request is refused before
    // any work (model_unavailable), which the SDK retries with the same key.
    let qualityRequests = 0;
    const answers: Array<[string, () => FakeBehavior]> = [
      ['drafts spaced practice', () => reply(fixture('practice-output'))],
      ['drafts assessment items', () => reply(fixture('assessment-output'))],
      ['reviews a teaching artifact', () => (qualityRequests++ === 0 ? { kind: 'fail', status: 400, message: 'refused before any work' } : reply(fixture('quality-output')))],
      ['draft analytic rubrics', () => reply(modelRubric('SDK essay rubric'))],
      ['visual brief', () => ({ kind: 'reply', text: JSON.stringify(plan), usage: { inputTokens: 700, outputTokens: 150 } })],
      ['live classroom activity', () => ({ kind: 'reply', text: JSON.stringify({ guidance: 'hint', text: 'Think about what the leaf does with sunlight.' }), usage: { inputTokens: 900, outputTokens: 60 } })],
    ];
    fake.respond((request) => {
      if (request.path.endsWith('/images/generations')) return { kind: 'image', bytes: FAKE_IMAGE_BYTES.png };
      const messages = (request.body as { messages?: Array<{ content?: string }> } | null)?.messages ?? [];
      const system = messages[0]?.content ?? '';
      if (system.includes('You draft classroom material')) {
        // The role chunk and one piece of text, then nothing until kgate aborts the request.
        if (messages[1]?.content?.includes('stops reading partway')) return { kind: 'stall', afterChunks: 2 };
        return { kind: 'reply', text: draft, usage: { inputTokens: 1200, outputTokens: 800 }, chunks: 4 };
      }
      const answer = answers.find(([words]) => system.includes(words));
      return answer ? answer[1]() : { kind: 'fail', status: 400, message: 'no scripted answer' };
    });
    const sentBefore = fake.requests.length;
    const { stdout, steps } = await runScenario('education.js', RUNTIME_SDK_EDUCATION_SCENARIO, {
      KGATE_CLIENT_ID: educationClient.id,
      KGATE_CLIENT_SECRET: educationClient.secret,
      EDU_REQUESTS: JSON.stringify(requests),
      EDU_KEYS: JSON.stringify(keys),
    });
    expect(stdout).not.toContain(educationClient.secret);
    expect(stdout).not.toContain(fake.apiKey);
    const statuses = Object.entries(steps).map(([name, step]) => `${name}: ${step?.status} ${step?.problems?.[0]?.code ?? ''}`);
    // Eight for the drafts, image and guidance; three generations (the replay calls none).
    expect(fake.requests.length - sentBefore, statuses.join('\n')).toBe(11);

    const usage = (meteredKind: string, replayed = false): unknown =>
      expect.objectContaining({ kind: 'service.product-intelligence-usage', meteredKind, outcome: 'settled', replayed, costMicrodollars: expect.any(Number) });
    const metered = (step: Step | undefined, kind: string, meteredKind: string) => {
      expect(step, JSON.stringify(step).slice(0, 600)).toMatchObject({ status: 'ok', kind, problems: [] });
      expect(step!.receipts.slice(0, 2)).toEqual([expect.objectContaining({ kind: 'service.product-runtime-operation', requestId: step!.requestId }), usage(meteredKind)]);
    };
    metered(steps.practice, 'service.education-practice-review', 'education-practice-review');
    expect(steps.practiceUsage).toEqual(steps.practice!.receipts[1]);
    // The replay: the same data and the first call's usage receipt, marked replayed; no model call was made for it.
    expect(steps.practiceReplay).toMatchObject({ status: 'ok', data: steps.practice!.data });
    expect(steps.practiceReplay!.receipts[1]).toEqual({ ...steps.practice!.receipts[1], replayed: true });
    metered(steps.assessment, 'service.education-assessment-draft', 'education-assessment-draft');
    expect(steps.assessment!.data).toMatchObject({ status: 'proposed' });
    // model_unavailable released the first attempt's reservation; the SDK's retry ran under the same key.
    metered(steps.qualityRetried, 'service.education-quality-review', 'education-quality-review');
    const rows = await gateway.db.query<{ state: string }>('SELECT state FROM intelligence_ledger WHERE organization_id = $1 AND idempotency_key = $2 ORDER BY created_at', [organizationId, keys.quality]);
    expect(rows.map((r) => r.state)).toEqual(['released', 'settled']);
    metered(steps.rubric, 'service.education-rubric-draft', 'education-rubric-draft');
    expect(steps.rubric!.data).toMatchObject({ title: 'SDK essay rubric', version: 1, status: 'proposed' });
    expect(steps.rubrics).toMatchObject({ status: 'ok', kind: 'service.education-rubrics', data: { rubrics: [expect.objectContaining({ rubricId: steps.rubric!.data.rubricId })] } });
    expect(steps.rubrics!.receipts).toEqual([expect.objectContaining({ kind: 'service.product-runtime-operation' })]);
    expect(steps.rubricRead).toMatchObject({ status: 'ok', kind: 'service.education-rubric', data: { versions: [expect.objectContaining({ version: 1 })] } });
    metered(steps.image, 'service.education-image', 'education-generate-image');
    expect(steps.image!.data).toMatchObject({ image: { mediaType: 'image/png', base64: Buffer.from(FAKE_IMAGE_BYTES.png).toString('base64') }, altText: plan.altText, status: 'proposed' });
    expect(steps.image!.receipts[1]).toMatchObject({ usage: { images: 1 } });
    metered(steps.guidance, 'service.education-student-guidance', 'education-student-guidance');
    expect(steps.guidance!.data).toMatchObject({ guidance: 'hint', withheld: false });
    expect(steps.guidance!.receipts[2]).toMatchObject({ kind: 'service.education-safety', withheld: false, delivered: 'model' });
    expect(steps.guidanceSafety).toEqual(steps.guidance!.receipts[2]);

    metered(steps.generate, 'service.education-generation', 'education-generate');
    expect(steps.generate!.data).toMatchObject({ status: 'proposed', format: 'markdown', text: draft, citations: { sources: ['unit2-reading'] } });
    // The stream: ready, the deltas in order (together the draft), and done with the envelope and its receipts.
    const streamed = steps.stream as unknown as Json[];
    expect(streamed[0]).toMatchObject({ type: 'ready', requestId: expect.any(String), meteredKind: 'education-generate', replayed: false });
    expect(streamed.at(-1)!.type).toBe('done');
    const deltas = streamed.slice(1, -1);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((event) => event.type === 'delta')).toBe(true);
    expect(deltas.map((event) => event.text).join('')).toBe(draft);
    const done = streamed.at(-1)!.envelope as Step;
    metered(done, 'service.education-generation', 'education-generate');
    expect(done.data).toMatchObject({ text: draft, status: 'proposed' });
    // The same key again: the stored draft as one delta, the first call's receipt marked replayed, no model call.
    const replay = steps.streamReplay as unknown as Json[];
    expect(replay.map((event) => event.type)).toEqual(['ready', 'delta', 'done']);
    expect(replay[0]).toMatchObject({ replayed: true });
    expect(replay[1]).toEqual({ type: 'delta', text: draft });
    expect((replay[2]!.envelope as Step).receipts[1]).toEqual({ ...done.receipts[1], replayed: true });

    // Aborted partway: the SDK threw `aborted` with the key, and kgate aborted the model request.
    expect(steps.abort).toEqual({ seen: ['ready', 'delta'], error: { name: 'RuntimeTransportError', reason: 'aborted', idempotencyKey: keys.abort } });
    await fake.idle();
    const stalled = fake.requests.filter((r) => JSON.stringify(r.body).includes('stops reading partway'));
    expect(stalled).toHaveLength(1);
    expect(stalled[0]!.aborted).toBe(true);
    // The runner settles the interrupted request once the abort reached it (accepted: a billable failure); waited for, boundedly.
    let state = '';
    for (let attempt = 0; attempt < 400 && !['billable_failure', 'released', 'settled'].includes(state); attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25));
      const [row] = await gateway.db.query<{ state: string }>('SELECT state FROM intelligence_ledger WHERE organization_id = $1 AND idempotency_key = $2', [organizationId, keys.abort]);
      state = row?.state ?? '';
    }
    expect(state).toBe('billable_failure');
  });
});
