/**
 * rubric-draft through a started gateway with the fake model (docs/education.md, "Rubric drafts"): a draft is
 * checked strictly, stored as the proposed next version of the installation's rubric in the metered call's flow, and
 * read back by the installation only; refused requests reserve nothing and call no model; invalid model output is a
 * billable model_output_invalid with nothing stored; a replay stores no second version. Then the page's form
 * refusals over plain HTTP (the Chromium scenario is education-rubrics-browser.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelEnvOf, startModelFake, type ModelFake } from './fakes/model/server.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { newAccount } from './support/oauth-flow.ts';
import { expectRuntimeProblem } from './support/runtime-checks.ts';
import { callRuntime } from './support/runtime-gateway.ts';
import { RUBRICS, createRubricChain, draftRubric, modelRubric, rubricRequest, rubricState, type RubricChain } from './support/education-rubrics.ts';

interface Draft {
  rubricId: string;
  version: number;
  basedOnVersion: number | null;
  status: string;
  title: string;
  levelLabels: string[];
  criteria: Array<{ name: string; weight: number; descriptors: Array<{ level: string; text: string }>; alignment: Array<{ code: string }> }>;
}

describe('rubric drafts through the Product Runtime', () => {
  let fake: ModelFake;
  let gateway: TestGateway;
  let chain: RubricChain;
  let other: RubricChain;
  let first: Draft;

  const reply = (value: unknown) => fake.script({ kind: 'reply', text: typeof value === 'string' ? value : JSON.stringify(value), usage: { inputTokens: 900, outputTokens: 700 } });

  /** Runs a request that must be refused with `code` before anything is reserved or sent to the model. */
  async function expectRefusedEarly(send: () => Promise<Parameters<typeof expectRuntimeProblem>[0]>, status: number, code: string): Promise<void> {
    const before = await rubricState(gateway.db);
    const sent = fake.requests.length;
    expectRuntimeProblem(await send(), status, code);
    expect(fake.requests.length).toBe(sent);
    expect(await rubricState(gateway.db)).toBe(before);
  }

  beforeAll(async () => {
    fake = await startModelFake();
    gateway = await startTestGateway({ env: modelEnvOf(fake) });
    chain = await createRubricChain(gateway, 'rubrics');
    other = await createRubricChain(gateway, 'rubrics-other');
  });
  afterAll(async () => {
    await gateway?.stop();
    await fake?.close();
  });

  it('drafts a weighted analytic rubric, stores it as proposed version 1 and answers the usage receipt', async () => {
    reply(modelRubric());
    const answer = await draftRubric(gateway, chain.token, rubricRequest(), randomUUID());
    expect(answer.status, JSON.stringify(answer.body).slice(0, 600)).toBe(200);
    expect(answer.body).toMatchObject({ version: 1, kind: 'service.education-rubric-draft', status: 'ok', problems: [] });
    first = answer.body.data as unknown as Draft;
    expect(first).toMatchObject({ version: 1, basedOnVersion: null, status: 'proposed', title: 'Argument essay', levelLabels: ['Exceeds', 'Meets', 'Approaching'] });
    expect(first.criteria.map((c) => c.weight).reduce((a, b) => a + b, 0)).toBe(100);
    expect(first.criteria[1]!.alignment).toEqual([{ code: 'W.7.1b' }]);
    expect(first.criteria.every((c) => c.descriptors.map((d) => d.level).join() === 'Exceeds,Meets,Approaching')).toBe(true);
    const usage = answer.body.receipts.find((r) => r.kind === 'service.product-intelligence-usage');
    expect(usage).toMatchObject({ meteredKind: 'education-rubric-draft', outcome: 'settled', replayed: false, requestId: answer.body.requestId });

    // The model got our instructions and the request as quoted data, asking for JSON.
    const sent = fake.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }>; response_format?: unknown };
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent.messages[0]!.content).not.toContain('Grade 7 English');
    expect(sent.messages[1]!.content).toContain('<data>');

    const read = await callRuntime<{ rubric: { latestVersion: number }; versions: Array<{ version: number; ledgerId: string; review: null; status: string }> }>(
      gateway,
      chain.token,
      'GET',
      `${RUBRICS}/rubrics/${first.rubricId}`,
    );
    expect(read.status).toBe(200);
    expect(read.body.kind).toBe('service.education-rubric');
    expect(read.body.data.rubric.latestVersion).toBe(1);
    expect(read.body.data.versions).toEqual([expect.objectContaining({ version: 1, status: 'proposed', review: null, ledgerId: usage!.ledgerId })]);
  });

  it('refuses one or seven level labels, and a request without a key, reserving nothing and calling no model', async () => {
    const refusals: Array<[string, () => ReturnType<typeof draftRubric>, number, string]> = [
      ['one label', () => draftRubric(gateway, chain.token, rubricRequest({ levelLabels: ['Meets'] }), randomUUID()), 400, 'invalid_request'],
      ['seven labels', () => draftRubric(gateway, chain.token, rubricRequest({ levelLabels: ['1', '2', '3', '4', '5', '6', '7'] }), randomUUID()), 400, 'invalid_request'],
      ['labels alike', () => draftRubric(gateway, chain.token, rubricRequest({ levelLabels: ['Meets', 'meets'] }), randomUUID()), 400, 'invalid_request'],
      ['13 criteria', () => draftRubric(gateway, chain.token, rubricRequest({ criterionCount: 13 }), randomUUID()), 400, 'invalid_request'],
      ['no key', () => draftRubric(gateway, chain.token, rubricRequest(), null), 400, 'idempotency_key_required'],
    ];
    for (const [, send, status, code] of refusals) await expectRefusedEarly(send, status, code);
  });

  it('answers model_output_invalid for weights that do not sum to 100 or a missing descriptor, stores nothing and says what it cost', async () => {
    const bad = [modelRubric(), modelRubric()];
    bad[0]!.criteria[0]!.weight = 30;
    bad[1]!.criteria[1]!.descriptors.pop();
    for (const answer of bad) {
      const before = await rubricState(gateway.db);
      const versions = await gateway.db.query('SELECT * FROM education_rubric_versions');
      reply(answer);
      const refused = await draftRubric(gateway, chain.token, rubricRequest(), randomUUID());
      expectRuntimeProblem(refused, 502, 'model_output_invalid');
      expect(refused.body.receipts.find((r) => r.kind === 'service.product-intelligence-usage')).toMatchObject({ outcome: 'billable_failure' });
      expect(await gateway.db.query('SELECT * FROM education_rubric_versions')).toEqual(versions);
      expect(await rubricState(gateway.db)).not.toBe(before); // the ledger recorded the billable failure, and only that
    }
  });

  it('drafts version 2 of a rubric from its latest version', async () => {
    reply(modelRubric('Argument essay, revised'));
    const answer = await draftRubric(gateway, chain.token, rubricRequest({ rubricId: first.rubricId }), randomUUID());
    expect(answer.status, JSON.stringify(answer.body).slice(0, 600)).toBe(200);
    expect(answer.body.data).toMatchObject({ rubricId: first.rubricId, version: 2, basedOnVersion: 1, status: 'proposed' });
    const user = (fake.requests.at(-1)!.body as { messages: Array<{ content: string }> }).messages[1]!.content;
    expect(user).toContain('revisingThisRubric');
    expect(user).toContain('Argument essay');
    const read = await callRuntime<{ versions: Array<{ version: number }> }>(gateway, chain.token, 'GET', `${RUBRICS}/rubrics/${first.rubricId}`);
    expect(read.body.data.versions.map((v) => v.version)).toEqual([2, 1]);
  });

  it("answers not_found for another installation's rubric, before reserving or calling the model, and on reads", async () => {
    await expectRefusedEarly(() => draftRubric(gateway, other.token, rubricRequest({ rubricId: first.rubricId }), randomUUID()), 404, 'not_found');
    await expectRefusedEarly(() => draftRubric(gateway, chain.token, rubricRequest({ rubricId: randomUUID() }), randomUUID()), 404, 'not_found');
    expectRuntimeProblem(await callRuntime(gateway, other.token, 'GET', `${RUBRICS}/rubrics/${first.rubricId}`), 404, 'not_found');
    const list = await callRuntime<{ rubrics: unknown[] }>(gateway, other.token, 'GET', `${RUBRICS}/rubrics`);
    expect(list.status).toBe(200);
    expect(list.body.data.rubrics).toEqual([]);
  });

  it('replays the same key without a second model call or a second version; another body under it is refused', async () => {
    const key = randomUUID();
    reply(modelRubric('Replayed'));
    const once = await draftRubric(gateway, chain.token, rubricRequest({ rubricId: first.rubricId }), key);
    expect(once.status).toBe(200);
    const before = await rubricState(gateway.db);
    const sent = fake.requests.length;
    const again = await draftRubric(gateway, chain.token, rubricRequest({ rubricId: first.rubricId }), key);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(once.body.data);
    expect(again.body.receipts.find((r) => r.kind === 'service.product-intelligence-usage')).toMatchObject({ replayed: true });
    expect(fake.requests.length).toBe(sent);
    expect(await rubricState(gateway.db)).toBe(before);
    await expectRefusedEarly(() => draftRubric(gateway, chain.token, rubricRequest({ rubricId: first.rubricId, criterionCount: 3 }), key), 422, 'idempotency_key_reused');
  });

  it('refuses a principal without intelligence.execute on every rubric route, reserving nothing', async () => {
    const publisher = await createRubricChain(gateway, 'rubrics-no-scope', ['notes.publish']);
    await expectRefusedEarly(() => draftRubric(gateway, publisher.token, rubricRequest(), randomUUID()), 403, 'insufficient_scope');
    await expectRefusedEarly(() => callRuntime(gateway, publisher.token, 'GET', `${RUBRICS}/rubrics`), 403, 'insufficient_scope');
    await expectRefusedEarly(() => callRuntime(gateway, publisher.token, 'GET', `${RUBRICS}/rubrics/${first.rubricId}`), 403, 'insufficient_scope');
  });

  it('numbers two racing drafts of one rubric n and n+1, losing neither', async () => {
    fake.respond(() => ({ kind: 'reply', text: JSON.stringify(modelRubric('Raced')), usage: { inputTokens: 900, outputTokens: 700 } }));
    try {
      const { versions: before } = (await callRuntime<{ versions: Array<{ version: number }> }>(gateway, chain.token, 'GET', `${RUBRICS}/rubrics/${first.rubricId}`)).body.data;
      const latest = before[0]!.version;
      const answers = await Promise.all([0, 1].map(() => draftRubric(gateway, chain.token, rubricRequest({ rubricId: first.rubricId }), randomUUID())));
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers.map((a) => (a.body.data as unknown as Draft).version).sort((x, y) => x - y)).toEqual([latest + 1, latest + 2]);
      const { versions } = (await callRuntime<{ versions: Array<{ version: number }> }>(gateway, chain.token, 'GET', `${RUBRICS}/rubrics/${first.rubricId}`)).body.data;
      expect(versions.slice(0, 3).map((v) => v.version)).toEqual([latest + 2, latest + 1, latest]);
    } finally {
      fake.respond(() => ({ kind: 'reply', text: 'This is the fake model answering.' }));
    }
  });

  it('fails the call when the draft cannot be stored: a billable failure, no version, and a replay answers the same failure', async () => {
    // A real failure of the store, injected in the database itself: inserting this draft's version raises.
    await gateway.db.exec(`CREATE FUNCTION refuse_test_rubric() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.content->>'title' = 'Cannot be stored' THEN RAISE EXCEPTION 'injected store failure'; END IF; RETURN NEW; END; $$;
      CREATE TRIGGER refuse_test_rubric BEFORE INSERT ON education_rubric_versions FOR EACH ROW EXECUTE FUNCTION refuse_test_rubric();`);
    try {
      const key = randomUUID();
      const rubrics = await gateway.db.query('SELECT * FROM education_rubrics ORDER BY id');
      const versions = await gateway.db.query('SELECT * FROM education_rubric_versions ORDER BY rubric_id, version');
      reply(modelRubric('Cannot be stored'));
      const failed = await draftRubric(gateway, chain.token, rubricRequest({ rubricId: first.rubricId }), key);
      expectRuntimeProblem(failed, 500, 'internal');
      const usage = failed.body.receipts.find((r) => r.kind === 'service.product-intelligence-usage');
      expect(usage).toMatchObject({ outcome: 'billable_failure' });
      const [row] = await gateway.db.query<{ state: string; charged_microdollars: number }>('SELECT state, charged_microdollars FROM intelligence_ledger WHERE id = $1', [usage!.ledgerId]);
      expect(row!.state).toBe('billable_failure');
      expect(row!.charged_microdollars).toBeGreaterThan(0);
      expect(await gateway.db.query('SELECT * FROM education_rubrics ORDER BY id')).toEqual(rubrics);
      expect(await gateway.db.query('SELECT * FROM education_rubric_versions ORDER BY rubric_id, version')).toEqual(versions);
      const sent = fake.requests.length;
      const replayed = await draftRubric(gateway, chain.token, rubricRequest({ rubricId: first.rubricId }), key);
      expectRuntimeProblem(replayed, 500, 'internal');
      expect(fake.requests.length).toBe(sent);
    } finally {
      await gateway.db.exec('DROP TRIGGER refuse_test_rubric ON education_rubric_versions; DROP FUNCTION refuse_test_rubric();');
    }
  });

  it('pages the installation\u2019s rubrics with a cursor', async () => {
    reply(modelRubric('Second rubric'));
    expect((await draftRubric(gateway, chain.token, rubricRequest(), randomUUID())).status).toBe(200);
    const page = await callRuntime<{ rubrics: Array<{ rubricId: string }>; nextCursor: string | null; truncated: boolean }>(gateway, chain.token, 'GET', `${RUBRICS}/rubrics?limit=1`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.data).toMatchObject({ truncated: true });
    const next = await callRuntime<{ rubrics: Array<{ rubricId: string }>; nextCursor: string | null }>(
      gateway,
      chain.token,
      'GET',
      `${RUBRICS}/rubrics?limit=1&cursor=${encodeURIComponent(page.body.data.nextCursor!)}`,
    );
    expect(next.body.data.rubrics).toHaveLength(1);
    expect(next.body.data.rubrics[0]!.rubricId).not.toBe(page.body.data.rubrics[0]!.rubricId);
    expectRuntimeProblem(await callRuntime(gateway, chain.token, 'GET', `${RUBRICS}/rubrics?cursor=forged`), 400, 'invalid_request');
  });

  describe('the marking form, refused', () => {
    let person: PageBrowser;
    let csrf: string;
    let page: string;

    async function signedIn(email: string, password: string): Promise<PageBrowser> {
      const browser = pageBrowser(gateway.baseUrl);
      expect((await signInThroughForm(browser, email, password)).status).toBe(303);
      return browser;
    }

    /** A post that must change nothing. */
    async function expectRefused(send: () => Promise<Response>, status: number, location?: RegExp): Promise<string> {
      const before = await rubricState(gateway.db);
      const response = await send();
      expect(response.status).toBe(status);
      if (location) expect(response.headers.get('location')).toMatch(location);
      expect(await rubricState(gateway.db)).toBe(before);
      return response.text();
    }

    const fields = (extra: Record<string, string> = {}) => ({ csrf, rubric_id: first.rubricId, version: '1', mark: 'reviewed', expected: 'none', ...extra });

    beforeAll(async () => {
      person = await signedIn(chain.customer.email, chain.customer.password);
      page = await (await person.get('/account/products/rubrics')).text();
      csrf = hiddenField(page, 'csrf');
    });

    it('shows the customer its rubric with weights, descriptors by level and its versions in words', () => {
      expect(page).toContain('Argument essay, revised');
      expect(page).toContain('States a clear claim in the first paragraph.');
      expect(page).toContain('Changes from version 1:');
      expect(page).toContain('Title changed from');
    });

    it('refuses without the CSRF token, from another origin, with a bearer token, from another account and from a viewer of the workspace', async () => {
      await expectRefused(() => person.post('/account/products/rubrics/mark', fields({ csrf: '' })), 403);
      await expectRefused(() => person.post('/account/products/rubrics/mark', fields(), { origin: 'https://attacker.example' }), 403);
      const tokenOnly = pageBrowser(gateway.baseUrl);
      await expectRefused(() => tokenOnly.post('/account/products/rubrics/mark', fields(), { authorization: `Bearer ${chain.customer.personalToken}` }), 303, /^\/signin\?/);
      await expectRefused(() => tokenOnly.post('/account/products/rubrics/mark', fields(), { authorization: `Bearer ${chain.token}` }), 303, /^\/signin\?/);

      const stranger = await newAccount(gateway, 'rubric-stranger');
      const strangerBrowser = await signedIn(stranger.email, stranger.password);
      const strangerCsrf = hiddenField(await (await strangerBrowser.get('/account/products/rubrics')).text(), 'csrf');
      const strangerPage = await expectRefused(() => strangerBrowser.post('/account/products/rubrics/mark', fields({ csrf: strangerCsrf })), 404);
      expect(strangerPage).toContain('data-code="not_found"');
      expect(strangerPage).not.toContain('Argument essay');

      const viewer = await newAccount(gateway, 'rubric-viewer');
      const workspaceId = (await gateway.services.workspaces.listWorkspaces(chain.customer.accountId))[0]!.id;
      const { token } = await gateway.services.membership.invite(chain.customer.accountId, workspaceId, 'viewer');
      await gateway.services.membership.acceptInvitation(viewer.accountId, token);
      const viewerBrowser = await signedIn(viewer.email, viewer.password);
      const viewerPage = await (await viewerBrowser.get('/account/products/rubrics')).text();
      expect(viewerPage).not.toContain('Argument essay');
      await expectRefused(() => viewerBrowser.post('/account/products/rubrics/mark', fields({ csrf: hiddenField(viewerPage, 'csrf') })), 404);
    });

    it('refuses a stale form with 409, a bad mark with 400, and marks with a fresh one', async () => {
      const stale = await expectRefused(() => person.post('/account/products/rubrics/mark', fields({ expected: 'dismissed' })), 409);
      expect(stale).toContain('data-code="conflict"');
      await expectRefused(() => person.post('/account/products/rubrics/mark', fields({ mark: 'applied' })), 400);
      const done = await person.post('/account/products/rubrics/mark', fields());
      expect(done.status).toBe(303);
      const [row] = await gateway.db.query<{ review: string }>('SELECT review FROM education_rubric_versions WHERE rubric_id = $1 AND version = 1', [first.rubricId]);
      expect(row!.review).toBe('reviewed');
      // The same form again is stale now: its version was marked since.
      await expectRefused(() => person.post('/account/products/rubrics/mark', fields({ mark: 'dismissed' })), 409);
    });
  });
});

describe('rubric drafts without a model configured', () => {
  let gateway: TestGateway;
  let chain: RubricChain;

  beforeAll(async () => {
    gateway = await startTestGateway();
    chain = await createRubricChain(gateway, 'rubrics-no-model');
  });
  afterAll(() => gateway?.stop());

  it('answers unavailable and reserves nothing; the reads still answer', async () => {
    const before = await rubricState(gateway.db);
    const answer = await draftRubric(gateway, chain.token, rubricRequest(), randomUUID());
    // An explicit `unavailable` envelope of the route's kind (docs/runtime.md), never a fabricated draft.
    expect(answer.body).toMatchObject({ kind: 'service.education-rubric-draft', status: 'unavailable', data: null, problems: [{ code: 'unavailable' }] });
    expect(await rubricState(gateway.db)).toBe(before);
    const list = await callRuntime<{ rubrics: unknown[] }>(gateway, chain.token, 'GET', `${RUBRICS}/rubrics`);
    expect([list.status, list.body.data.rubrics]).toEqual([200, []]);
  });
});
