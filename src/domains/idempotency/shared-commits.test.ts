import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, TEST_ENGINE } from '../../../test/support/database.ts';
import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { GroupRunner, IdempotentOutcome, Settled, SharedWork } from './contract.ts';
import { createIdempotencyService, type IdempotencyService } from './service.ts';
import { MAX_GROUP_KEYS, MAX_GROUP_MEMBERS, takeGroup } from './shared-commits.ts';

describe('takeGroup', () => {
  const waiting = (name: string, ...keys: string[]) => ({ name, keys });
  const names = (list: ReadonlyArray<{ name: string }>) => list.map((w) => w.name);

  it('takes waiting work in arrival order and leaves the rest queued', () => {
    const queue = [waiting('a', 'x'), waiting('b', 'y'), waiting('c', 'z')];
    expect(names(takeGroup(queue))).toEqual(['a', 'b', 'c']);
    expect(queue).toEqual([]);
  });

  it('passes over work that names a key of work before it, and keeps later work on that key behind it', () => {
    const queue = [waiting('a', 'x'), waiting('b', 'x', 'y'), waiting('c', 'y'), waiting('d', 'z')];
    expect(names(takeGroup(queue))).toEqual(['a', 'd']);
    // c does not overtake b, which it shares y with; the next group takes b, then c after it.
    expect(names(queue)).toEqual(['b', 'c']);
    expect(names(takeGroup(queue))).toEqual(['b']);
    expect(names(takeGroup(queue))).toEqual(['c']);
  });

  it('stops at the member and key bounds, but always takes the first work whatever its size', () => {
    const many = Array.from({ length: MAX_GROUP_MEMBERS + 3 }, (_, k) => waiting(`m${k}`, `k${k}`));
    expect(takeGroup(many)).toHaveLength(MAX_GROUP_MEMBERS);
    expect(many).toHaveLength(3);
    const huge = waiting('huge', ...Array.from({ length: MAX_GROUP_KEYS + 1 }, (_, k) => `h${k}`));
    const queue = [huge, waiting('small', 's')];
    expect(names(takeGroup(queue))).toEqual(['huge']);
    expect(names(queue)).toEqual(['small']);
  });
});

/** What a test member asks its runner to do. */
interface Job {
  name: string;
  /** The runner refuses it (a KgateError): it must write nothing. */
  refuse?: boolean;
  /** In a group of more than one, the runner fails as a whole when this member is in it. */
  poison?: boolean;
}

describe('shared commits on the real database', () => {
  let db: Database;
  let transactions = 0;
  let groups: string[][] = [];
  let idempotency: IdempotencyService;

  // The real database, with transactions counted: how many commits the members shared.
  const counted = (inner: Database): Database => ({
    ...inner,
    query: (text, params) => inner.query(text, params),
    exec: (script) => inner.exec(script),
    afterCommit: (callback) => inner.afterCommit(callback),
    transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
      transactions += 1;
      return inner.transaction(work);
    },
    listen: (channel, onMessage, onState) => inner.listen(channel, onMessage, onState),
    close: () => inner.close(),
  });

  // A domain in miniature: each member writes one row, in one statement for the whole group, sent with its outcomes.
  const runGroup: GroupRunner<Job, string> = async (sql, members, hooks) => {
    if (members.length > 1 && members.some((m) => m.payload.poison)) throw new Error('the group failed as a whole');
    if (members.some((m) => m.payload.poison)) throw new Error('poison alone');
    const admitted = await hooks.admitted;
    if (admitted.some(Boolean)) groups.push(members.filter((_, k) => admitted[k]).map((m) => m.payload.name));
    const settled = members.map((m, k): Settled<string> | undefined =>
      !admitted[k] ? undefined : m.payload.refuse ? { ok: false, error: new KgateError('conflict', `${m.payload.name} is refused`) } : { ok: true, value: m.payload.name },
    );
    const written = members.filter((_, k) => settled[k]?.ok);
    await Promise.all([
      written.length === 0
        ? undefined
        : sql.query('INSERT INTO shared_commit_rows (name, key) SELECT * FROM unnest($1::text[], $2::text[])', [
            written.map((m) => m.payload.name),
            written.map((m) => m.key),
          ]),
      hooks.settle(settled),
    ]);
  };
  const work = (job: Job, keys: string[] = [job.name]): SharedWork<Job, string, { name: string }> => ({
    lane: 'test',
    keys,
    payload: job,
    runGroup,
    present: (name) => ({ name }),
  });
  const request = (key: string, input: unknown = {}) => ({ accountId: '00000000-0000-4000-8000-000000000001', key, operation: 'test', input });
  const rows = async () => (await db.query<{ name: string }>('SELECT name FROM shared_commit_rows ORDER BY name')).map((r) => r.name);
  const stored = async (key: string) =>
    (await db.query<{ state: string; outcome: string | null }>('SELECT state, outcome FROM idempotency_keys WHERE key = $1', [key]))[0];
  const value = (outcome: IdempotentOutcome<{ name: string }>) => (outcome.replayed ? outcome.outcome : outcome.value);

  beforeAll(async () => {
    const opened = await openTestDatabase();
    db = counted(opened.db);
    await db.exec('CREATE TABLE shared_commit_rows (name text PRIMARY KEY, key text NOT NULL)');
    idempotency = createIdempotencyService(db);
  });
  afterAll(() => db.close());

  const reset = async () => {
    await db.exec('DELETE FROM shared_commit_rows; DELETE FROM idempotency_keys');
    transactions = 0;
    groups = [];
  };

  it('runs concurrent work of one lane in one transaction, each outcome stored under its own key', async () => {
    await reset();
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const outcomes = await Promise.all(names.map((name) => idempotency.runShared(request(`key-${name}`), work({ name }))));
    expect(outcomes.map(value)).toEqual(names.map((name) => ({ name })));
    // The first runs at once, alone; the five that arrive meanwhile share the next transaction.
    expect(groups).toEqual([['a'], ['b', 'c', 'd', 'e', 'f']]);
    expect(transactions).toBe(2);
    expect(await rows()).toEqual(names);
    for (const name of names) expect(await stored(`key-${name}`)).toEqual({ state: 'completed', outcome: JSON.stringify({ kind: 'result', value: { name } }) });
    // A retry replays from the key, and runs nothing.
    const retry = await idempotency.runShared(request('key-c'), work({ name: 'c' }));
    expect(retry).toEqual({ replayed: true, outcome: { kind: 'result', value: { name: 'c' } } });
    expect(groups).toHaveLength(2);
  });

  it('refuses one member without writing anything of it, and stores the refusal for its retries', async () => {
    await reset();
    const jobs: Job[] = [{ name: 'first' }, { name: 'ok-1' }, { name: 'refused', refuse: true }, { name: 'ok-2' }];
    const settled = await Promise.allSettled(jobs.map((job) => idempotency.runShared(request(`key-${job.name}`), work(job))));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict' });
    expect(groups).toEqual([['first'], ['ok-1', 'refused', 'ok-2']]);
    expect(await rows()).toEqual(['first', 'ok-1', 'ok-2']);
    expect(JSON.parse((await stored('key-refused'))!.outcome!)).toMatchObject({ kind: 'error', code: 'conflict' });
  });

  it('runs each member alone when the group fails as a whole: only the member that fails is refused', async () => {
    await reset();
    const jobs: Job[] = [{ name: 'first' }, { name: 'm1' }, { name: 'bad', poison: true }, { name: 'm2' }];
    const settled = await Promise.allSettled(jobs.map((job) => idempotency.runShared(request(`key-${job.name}`), work(job))));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ message: 'poison alone' });
    expect(groups).toEqual([['first'], ['m1'], ['m2']]);
    expect(await rows()).toEqual(['first', 'm1', 'm2']);
    // The failure was not a refusal: its key is released, so that a retry runs again.
    expect(await stored('key-bad')).toBeUndefined();
  });

  it('answers requests with one key once: the others replay it, and never share its group', async () => {
    await reset();
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => idempotency.runShared(request('same'), work({ name: 'once' }))));
    expect(outcomes.filter((o) => !o.replayed)).toEqual([{ replayed: false, value: { name: 'once' } }]);
    expect(outcomes.filter((o) => o.replayed)).toHaveLength(3);
    expect(groups).toEqual([['once']]);
    expect(await rows()).toEqual(['once']);
  });

  it('refuses a key reused for another request, with nothing written', async () => {
    await reset();
    await idempotency.runShared(request('reused', { n: 1 }), work({ name: 'one' }));
    await expect(idempotency.runShared(request('reused', { n: 2 }), work({ name: 'two' }))).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect(await rows()).toEqual(['one']);
  });

  it('keeps the order of work on one key: later work waits for a later group', async () => {
    await reset();
    const outcomes = await Promise.all([
      idempotency.runShared(request('k1'), work({ name: 'first' }, ['x'])),
      idempotency.runShared(request('k2'), work({ name: 'x-then' }, ['x'])),
      idempotency.runShared(request('k3'), work({ name: 'y' }, ['y'])),
      idempotency.runShared(request('k4'), work({ name: 'x-last' }, ['x'])),
    ]);
    expect(outcomes.every((o) => !o.replayed)).toBe(true);
    expect(groups).toEqual([['first'], ['x-then', 'y'], ['x-last']]);
  });

  // Two PostgreSQL connections, one statement at a time in a fixed order; PGlite runs one transaction at a time, so
  // there the two never overlap. Work running alone holds its domain's lock (here a row standing for a vault) when it
  // completes its key; a group that found the key held must not hold a lock on that key while it waits for the
  // domain's lock, or each waits for the other and PostgreSQL aborts one of them ("deadlock detected").
  it.runIf(TEST_ENGINE === 'postgres')('a group that finds a key held by work running alone locks nothing of it: both finish, the retry replays', async () => {
    await reset();
    await db.query("INSERT INTO shared_commit_rows (name, key) VALUES ('vault', 'lock')");
    const failures: string[] = [];
    const lockVault = async (sql: Sql) => {
      try {
        await sql.query("SELECT name FROM shared_commit_rows WHERE name = 'vault' FOR UPDATE");
      } catch (error) {
        failures.push(String(error));
        throw error;
      }
    };
    const signal = <T = void>() => {
      let resolve!: (value: T) => void;
      const promise = new Promise<T>((r) => (resolve = r));
      return { promise, resolve };
    };
    const aloneLocked = signal();
    const aloneMayFinish = signal();
    const groupAdmitted = signal<readonly boolean[]>();

    const alone = idempotency.run(request('held'), async (commit) => {
      await lockVault(commit.sql);
      aloneLocked.resolve();
      await aloneMayFinish.promise;
      return { name: 'alone' };
    });
    await aloneLocked.promise;
    // The group's claim has run once `admitted` settles; then it waits for the lock the work alone holds.
    const lockingGroup: GroupRunner<Job, string> = async (sql, members, hooks) => {
      groupAdmitted.resolve(await hooks.admitted);
      await lockVault(sql);
      await hooks.settle(members.map(() => undefined));
    };
    const grouped = idempotency.runShared(request('held'), { lane: 'locking', keys: ['vault'], payload: { name: 'group' }, runGroup: lockingGroup, present: (name) => ({ name }) });
    expect(await groupAdmitted.promise).toEqual([false]);
    // The work alone now completes its key (an UPDATE of its row) while the group waits for the vault.
    aloneMayFinish.resolve();
    const [aloneOutcome, groupedOutcome] = await Promise.allSettled([alone, grouped]);
    expect(aloneOutcome).toEqual({ status: 'fulfilled', value: { replayed: false, value: { name: 'alone' } } });
    expect(groupedOutcome).toEqual({ status: 'fulfilled', value: { replayed: true, outcome: { kind: 'result', value: { name: 'alone' } } } });
    expect(failures).toEqual([]);
    expect(await stored('held')).toEqual({ state: 'completed', outcome: JSON.stringify({ kind: 'result', value: { name: 'alone' } }) });
  });
});
