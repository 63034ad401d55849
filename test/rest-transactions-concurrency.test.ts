import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { notePathUrl, restClient, snapshotOf, type RestClient } from './support/rest-client.ts';
import {
  allEvents,
  apply,
  expectProblem,
  expectRejected,
  hashOf,
  newKey,
  seedNotes,
  withoutRequestId,
  type Action,
} from './support/rest-transactions.ts';

// Idempotency keys and concurrent writers. The race tests are the acceptance test of governed writes: whatever the
// interleaving, one writer wins, the other is told its revision is stale, and the event chain has no gap.
describe('applying transactions under idempotency keys and concurrency', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  async function vault(label: string): Promise<{ owner: Owner; api: RestClient; mappingId: string }> {
    const owner = await createOwner(gateway.services, label);
    return { owner, api: restClient(gateway, owner.token), mappingId: owner.mapping.id };
  }

  async function contentOf(api: RestClient, mappingId: string, path: string): Promise<string> {
    const response = await api.get<{ content: string }>(notePathUrl(path), { query: { mappingId } });
    expect(response.status, response.text).toBe(200);
    return response.body.content;
  }

  describe('Idempotency-Key', () => {
    it('replays a retry with the same key: same status and body, Idempotent-Replayed, and no second apply', async () => {
      const { api, mappingId } = await vault('replay');
      const key = newKey();
      const actions: Action[] = [
        { type: 'write-note', path: 'r/one.md', content: 'one\n' },
        { type: 'write-note', path: 'r/two.md', content: 'two\n' },
      ];
      const first = await apply(api, mappingId, actions, key);
      expect(first.status, first.text).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const before = await snapshotOf(gateway);

      const retry = await apply(api, mappingId, actions, key);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(retry.text).toBe(first.text);
      expect(await snapshotOf(gateway)).toBe(before);

      // The fingerprint is of the validated input: the order of JSON keys does not make another request.
      const reordered = await api.post('/transactions', {
        raw: JSON.stringify({ actions: actions.map((a) => Object.fromEntries(Object.entries(a).reverse())), dryRun: false, mappingId }),
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
      });
      expect(reordered.status).toBe(200);
      expect(reordered.headers.get('idempotent-replayed')).toBe('true');
      expect(await snapshotOf(gateway)).toBe(before);
      expect((await allEvents(api, mappingId)).filter((e) => e.idempotencyKey === key)).toHaveLength(2);
    });

    it('replays a refused apply with the same problem, even after the state changed', async () => {
      const { api, mappingId } = await vault('replay-refusal');
      const { 'r/note.md': hash } = await seedNotes(api, mappingId, { 'r/note.md': 'v1\n' });
      const key = newKey();
      const stale: Action[] = [{ type: 'write-note', path: 'r/note.md', content: 'v2\n', expectedHash: hashOf('v0\n') }];
      const first = await expectRejected(gateway, () => apply(api, mappingId, stale, key), 412, 'stale_revision');
      const retry = await apply(api, mappingId, stale, key);
      expect(expectProblem(retry, 412, 'stale_revision')).toMatchObject(withoutRequestId(first));
      expect(retry.headers.get('idempotent-replayed')).toBe('true');

      // Even once the expected hash would match, the key answers what it answered.
      const reset = await apply(api, mappingId, [{ type: 'delete-note', path: 'r/note.md', expectedHash: hash! }]);
      expect(reset.status).toBe(200);
      await seedNotes(api, mappingId, { 'r/note.md': 'v0\n' });
      await expectRejected(gateway, () => apply(api, mappingId, stale, key), 412, 'stale_revision');
      expect(await contentOf(api, mappingId, 'r/note.md')).toBe('v0\n');
    });

    it('422 when a key is reused with another body or for another operation, and nothing changes', async () => {
      const { api, mappingId } = await vault('reuse');
      const key = newKey();
      expect((await apply(api, mappingId, [{ type: 'write-note', path: 'k/a.md', content: 'a\n' }], key)).status).toBe(200);
      await expectRejected(gateway, () => apply(api, mappingId, [{ type: 'write-note', path: 'k/a2.md', content: 'a\n' }], key), 422, 'idempotency_key_reused');
      await expectRejected(
        gateway,
        () => api.post('/notes', { json: { mappingId, path: 'k/a.md', content: 'a\n', dryRun: false }, headers: { 'idempotency-key': key } }),
        422,
        'idempotency_key_reused',
      );
    });

    it('does not spend a key on a preview, and scopes keys to the account', async () => {
      const { api, mappingId } = await vault('scope');
      const other = await vault('scope-other');
      const key = newKey();
      const actions: Action[] = [{ type: 'write-note', path: 's/a.md', content: 'a\n' }];
      const previewed = await api.post('/transactions', { json: { mappingId, actions }, headers: { 'idempotency-key': key } });
      expect(previewed.status).toBe(200);
      const applied = await apply(api, mappingId, actions, key);
      expect(applied.status).toBe(200);
      expect(applied.headers.get('idempotent-replayed')).toBeNull();
      const theirs = await apply(other.api, other.mappingId, actions, key);
      expect(theirs.status, theirs.text).toBe(200);
      expect(theirs.headers.get('idempotent-replayed')).toBeNull();
      expect(theirs.body.mappingId).toBe(other.mappingId);
    });

    it('applies once when identical requests with one key arrive together', async () => {
      const { api, mappingId } = await vault('same-key');
      const key = newKey();
      const actions: Action[] = [{ type: 'write-note', path: 'c/once.md', content: 'once\n' }];
      const responses = await Promise.all(Array.from({ length: 6 }, () => apply(api, mappingId, actions, key)));
      const fresh = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
      const replayed = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === 'true');
      const inFlight = responses.filter((r) => r.status === 409);
      // On failure: every answer, and the server's error lines (a 500's stack is only in the log).
      const diagnosis = [
        ...responses.map((r) => `${r.status} ${r.headers.get('idempotent-replayed') ?? ''} ${r.status === 200 ? '' : r.text}`),
        ...gateway.logs.filter((line) => line.includes('"level":50')),
      ].join('\n');
      expect(fresh, diagnosis).toHaveLength(1);
      expect(replayed.length + inFlight.length, diagnosis).toBe(5);
      for (const r of replayed) expect(r.body).toEqual(fresh[0]!.body);
      for (const r of inFlight) {
        expectProblem(r, 409, 'idempotency_key_in_flight');
        expect(r.headers.get('retry-after')).toBe('1');
      }
      expect((await allEvents(api, mappingId)).filter((e) => e.idempotencyKey === key)).toHaveLength(1);
      expect(await contentOf(api, mappingId, 'c/once.md')).toBe('once\n');
    });
  });

  describe('conflicting writers', () => {
    it('two clients change one note at the same moment, ten times: one wins, one gets 412, the chain has no gap', async () => {
      const { owner, api, mappingId } = await vault('race');
      const second = await gateway.services.tokens.issueToken({ accountId: owner.accountId, name: 'second client' });
      const clients = [api, restClient(gateway, second.token)];
      const path = 'race/shared.md';
      let { [path]: current } = await seedNotes(api, mappingId, { [path]: 'round 0\n' });
      const winners: string[] = [];
      const losers: string[] = [];

      for (let round = 1; round <= 10; round++) {
        const attempts = clients.map((client, i) => ({ client, key: newKey(), content: `round ${round} by client ${i}\n` }));
        const responses = await Promise.all(
          attempts.map((a) => apply(a.client, mappingId, [{ type: 'write-note', path, content: a.content, expectedHash: current! }], a.key)),
        );
        const statuses = responses.map((r) => r.status).sort();
        expect(statuses, responses.map((r) => r.text).join('\n')).toEqual([200, 412]);
        const winner = attempts[responses.findIndex((r) => r.status === 200)]!;
        const loser = responses.find((r) => r.status === 412)!;
        expect(expectProblem(loser, 412, 'stale_revision').problems).toMatchObject([{ index: 0, path, code: 'stale_revision' }]);
        expect(await contentOf(api, mappingId, path)).toBe(winner.content);
        current = hashOf(winner.content);
        winners.push(winner.key);
        losers.push(attempts.find((a) => a !== winner)!.key);
      }

      const events = (await allEvents(api, mappingId)).filter((e) => e.path === path);
      expect(events).toHaveLength(11);
      expect(events[0]).toMatchObject({ kind: 'note.created', beforeRevision: null, afterRevision: hashOf('round 0\n') });
      for (let i = 1; i < events.length; i++) {
        expect(events[i]!.kind).toBe('note.updated');
        expect(events[i]!.seq).toBeGreaterThan(events[i - 1]!.seq);
        expect(events[i]!.beforeRevision).toBe(events[i - 1]!.afterRevision);
      }
      expect(events.at(-1)!.afterRevision).toBe(current);
      expect(events.slice(1).map((e) => e.idempotencyKey)).toEqual(winners);
      expect(events.some((e) => losers.includes(e.idempotencyKey!))).toBe(false);
    });

    it('twenty applies to one vault at once: each commits whole under its own key, a stale one writes nothing', async () => {
      const { api, mappingId } = await vault('many-writers');
      const { 'many/seed.md': seed } = await seedNotes(api, mappingId, { 'many/seed.md': 'seed\n' });
      const before = await snapshotOf(gateway);
      const writers = Array.from({ length: 20 }, (_, i) => ({
        key: newKey(),
        actions:
          i === 7
            ? ([
                { type: 'write-note', path: 'many/never.md', content: 'never\n' },
                { type: 'write-note', path: 'many/seed.md', content: 'late\n', expectedHash: hashOf('not the seed\n') },
              ] as Action[])
            : ([
                { type: 'write-note', path: `many/${i}-a.md`, content: `# ${i}\n\nSee [[${i}-b]].\n` },
                { type: 'write-note', path: `many/${i}-b.md`, content: `# ${i} b\n` },
              ] as Action[]),
      }));
      const responses = await Promise.all(writers.map((w) => apply(api, mappingId, w.actions, w.key)));
      expect(responses.map((r) => r.status)).toEqual(writers.map((_, i) => (i === 7 ? 412 : 200)));
      expectProblem(responses[7]!, 412, 'stale_revision');
      expect(await contentOf(api, mappingId, 'many/seed.md')).toBe('seed\n');
      expect(hashOf(await contentOf(api, mappingId, 'many/seed.md'))).toBe(seed);
      expect((await api.get(notePathUrl('many/never.md'), { query: { mappingId } })).status).toBe(404);
      const events = await allEvents(api, mappingId);
      for (const [i, w] of writers.entries()) {
        const mine = events.filter((e) => e.idempotencyKey === w.key);
        expect(mine.map((e) => e.path)).toEqual(i === 7 ? [] : [`many/${i}-a.md`, `many/${i}-b.md`]);
        if (i !== 7) expect(responses[i]!.body.actions.map((a) => a.status)).toEqual(['create', 'create']);
      }
      // Each retry replays its own answer, and changes nothing.
      const after = await snapshotOf(gateway);
      expect(after).not.toBe(before);
      const retries = await Promise.all(writers.map((w) => apply(api, mappingId, w.actions, w.key)));
      expect(retries.map((r) => r.headers.get('idempotent-replayed'))).toEqual(writers.map(() => 'true'));
      for (const [i, retry] of retries.entries()) {
        if (i === 7) expect(expectProblem(retry, 412, 'stale_revision')).toMatchObject(withoutRequestId(expectProblem(responses[7]!, 412, 'stale_revision')));
        else expect(retry.text).toBe(responses[i]!.text);
      }
      expect(await snapshotOf(gateway)).toBe(after);
    });

    it('five clients creating one new path at once: one creates it, the others must send its hash (428)', async () => {
      const { api, mappingId } = await vault('create-race');
      const path = 'race/new.md';
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) => apply(api, mappingId, [{ type: 'write-note', path, content: `by ${i}\n` }])),
      );
      const won = responses.filter((r) => r.status === 200);
      expect(won, responses.map((r) => r.text).join('\n')).toHaveLength(1);
      for (const r of responses.filter((x) => x.status !== 200)) expectProblem(r, 428, 'precondition_required');
      const events = (await allEvents(api, mappingId)).filter((e) => e.path === path);
      expect(events.map((e) => e.kind)).toEqual(['note.created']);
      expect(hashOf(await contentOf(api, mappingId, path))).toBe(events[0]!.afterRevision);
    });

    it('two restores of one trash entry at once: one restores it, the other finds no restorable entry', async () => {
      const { api, mappingId } = await vault('restore-race');
      for (let round = 0; round < 3; round++) {
        const path = `race/back-${round}.md`;
        const { [path]: hash } = await seedNotes(api, mappingId, { [path]: 'back\n' });
        const del = await apply(api, mappingId, [{ type: 'delete-note', path, expectedHash: hash! }]);
        const restore: Action[] = [{ type: 'restore-note', trashId: del.body.actions[0]!.trashId!, path }];
        const responses = await Promise.all([apply(api, mappingId, restore), apply(api, mappingId, restore)]);
        expect(responses.map((r) => r.status).sort(), responses.map((r) => r.text).join('\n')).toEqual([200, 404]);
        expectProblem(responses.find((r) => r.status === 404)!, 404, 'not_found');
        const kinds = (await allEvents(api, mappingId)).filter((e) => e.path === path).map((e) => e.kind);
        expect(kinds).toEqual(['note.created', 'note.deleted', 'note.restored']);
      }
    });

    it('a delete and an update racing on one revision: exactly one applies', async () => {
      const { api, mappingId } = await vault('delete-race');
      for (let round = 0; round < 5; round++) {
        const path = `race/victim-${round}.md`;
        const { [path]: hash } = await seedNotes(api, mappingId, { [path]: 'victim\n' });
        const [update, del] = await Promise.all([
          apply(api, mappingId, [{ type: 'write-note', path, content: 'survivor\n', expectedHash: hash! }]),
          apply(api, mappingId, [{ type: 'delete-note', path, expectedHash: hash! }]),
        ]);
        expect([update.status, del.status].sort(), `${update.text}\n${del.text}`).toEqual([200, 412]);
        const note = await api.get<{ content: string }>(notePathUrl(path), { query: { mappingId } });
        if (update.status === 200) expect(note.body.content).toBe('survivor\n');
        else expect(note.status).toBe(404);
        const kinds = (await allEvents(api, mappingId)).filter((e) => e.path === path).map((e) => e.kind);
        expect(kinds).toEqual(['note.created', update.status === 200 ? 'note.updated' : 'note.deleted']);
      }
    });
  });
});
