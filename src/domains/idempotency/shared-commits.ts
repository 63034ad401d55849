import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_RETENTION_MS,
  type BeginResult,
  type IdempotencyClaim,
  type IdempotentCommit,
  type GroupRunner,
  type IdempotentOutcome,
  type Settled,
  type SharedMember,
  type SharedWork,
} from './contract.ts';
import { isRetryable, storedError } from './outcomes.ts';
import * as store from './store.ts';

/**
 * Most members in one group. The group's runner plans every member in one turn of the request thread, so a group
 * stays small enough to keep that turn short; under heavier load groups simply follow each other.
 */
export const MAX_GROUP_MEMBERS = 16;
/** Most keys (for notes: path keys) in one group, which bounds its statements and its turn the same way. */
export const MAX_GROUP_KEYS = 160;

// Why `unknown` three times: a lane holds work of one runner, whose types the caller knew and `submit` erased.
type AnyWork = SharedWork<unknown, unknown, unknown>;

interface Waiting {
  claim: IdempotencyClaim;
  work: AnyWork;
  /** The work's keys and its idempotency key: two requests with one key never share a group. */
  keys: readonly string[];
  resolve: (outcome: IdempotentOutcome<unknown>) => void;
  reject: (error: unknown) => void;
}

/** What shared commits need of the idempotency service: its claim, and its way of running claimed work alone. */
export interface SoloPath {
  begin(claim: IdempotencyClaim): Promise<BeginResult>;
  /** Runs claimed work alone in a transaction of its own and stores its outcome (the service's usual path). */
  runAlone<T>(claim: IdempotencyClaim, work: (commit: IdempotentCommit) => Promise<T>): Promise<T>;
}

/** Where shared work waits for its group (see SharedWork). */
export interface SharedCommits {
  /** Runs work in a group with other waiting work of its lane, claiming its key there; resolves as `run` would. */
  submit<P, R, T>(claim: IdempotencyClaim, work: SharedWork<P, R, T>): Promise<IdempotentOutcome<T>>;
}

/**
 * Takes the next group from a lane's queue, in arrival order: work joins unless the group is full or it names a key
 * of work taken or passed over before it (which keeps the order of work on one key). The first waiting work always
 * goes, however many keys it names.
 */
export function takeGroup<W extends { keys: readonly string[] }>(queue: W[]): W[] {
  const taken: W[] = [];
  const left: W[] = [];
  const takenKeys = new Set<string>();
  const passedKeys = new Set<string>();
  for (const waiting of queue) {
    const keys = waiting.keys;
    const fits = taken.length === 0 || (taken.length < MAX_GROUP_MEMBERS && takenKeys.size + keys.length <= MAX_GROUP_KEYS);
    if (fits && !keys.some((key) => takenKeys.has(key) || passedKeys.has(key))) {
      taken.push(waiting);
      for (const key of keys) takenKeys.add(key);
    } else {
      left.push(waiting);
      for (const key of keys) passedKeys.add(key);
    }
  }
  queue.splice(0, queue.length, ...left);
  return taken;
}

/**
 * Runs `tasks` one per turn of the event loop. Answering a member (its response, its log line) is request-thread
 * work; a group's members answered all at once would hold one turn for all of them, and the next group's database
 * replies would wait behind it. One per turn, the next group runs on the database thread meanwhile.
 */
function inTurns(tasks: Array<() => void>): void {
  const next = () => {
    tasks.shift()?.();
    if (tasks.length > 0) setImmediate(next);
  };
  next();
}

const claimId = (claim: IdempotencyClaim) => store.keyId(claim.scope, claim.key);

/**
 * Runs `runGroup` for one member that runs whatever happens (its key is claimed already, or it has none of its own),
 * in `sql`: its outcome, undefined if the runner never settled it. The path of a member that runs alone.
 */
export async function runGroupOfOne<P, R>(runGroup: GroupRunner<P, R>, sql: Sql, member: SharedMember<P>): Promise<Settled<R> | undefined> {
  let outcome: Settled<R> | undefined;
  await runGroup(sql, [member], {
    admitted: Promise.resolve([true]),
    settle: (outcomes) => {
      outcome = outcomes[0];
      return Promise.resolve();
    },
  });
  return outcome;
}

function answer(work: AnyWork, settled: Settled<unknown> | undefined): unknown {
  if (!settled) throw new Error('the group runner answered fewer members than it was given');
  if (!settled.ok) throw settled.error;
  return work.present(settled.value);
}

/**
 * Builds the lanes of shared commits over `db`. A group's transaction claims its members' keys (one statement),
 * runs the claimed ones through their runner, stores every outcome (one statement) and commits once. A key that
 * another request holds or finished is left out of the group and goes the usual way (`begin`: replay, reuse, in
 * flight). When a group fails as a whole, each member goes the usual way alone.
 */
export function createSharedCommits(db: Database, solo: SoloPath): SharedCommits {
  const lanes = new Map<AnyWork['runGroup'], Map<string, Waiting[]>>();

  /** Runs one member by itself in `commit`'s transaction (its key is claimed already): the answer, or its refusal thrown. */
  const runOne = async (waiting: Waiting, commit: IdempotentCommit): Promise<unknown> =>
    answer(waiting.work, await runGroupOfOne(waiting.work.runGroup, commit.sql, { payload: waiting.work.payload, key: commit.key }));

  /** The usual path of `IdempotencyService.run`: claim (or replay, or refuse), then run alone. */
  async function usual(waiting: Waiting): Promise<IdempotentOutcome<unknown>> {
    const begun = await solo.begin(waiting.claim);
    if (begun.kind === 'replay') return { replayed: true, outcome: begun.outcome };
    return { replayed: false, value: await solo.runAlone(waiting.claim, (commit) => runOne(waiting, commit)) };
  }

  /** Stores the outcomes of the admitted members in `sql`, and keeps their answers for after the commit. */
  function storeOutcomes(sql: Sql, members: readonly Waiting[], settled: ReadonlyArray<Settled<unknown> | undefined>): { answers: Array<Settled<unknown>>; stored: Promise<unknown> } {
    const answers = members.map((w, k): Settled<unknown> => {
      try {
        return { ok: true, value: answer(w.work, settled[k]) };
      } catch (error) {
        if (error instanceof KgateError) return { ok: false, error };
        throw error;
      }
    });
    const completed = [];
    const released = [];
    for (const [k, w] of members.entries()) {
      const result = answers[k]!;
      const { scope, key } = w.claim;
      if (result.ok) completed.push({ scope, key, outcome: { kind: 'result' as const, value: result.value } });
      else if (isRetryable(result.error)) released.push({ scope, key });
      else completed.push({ scope, key, outcome: storedError(result.error) });
    }
    return { answers, stored: Promise.all([store.completeKeys(sql, completed), store.releaseKeys(sql, released)]) };
  }

  async function together(group: Waiting[]): Promise<void> {
    const runGroup = group[0]!.work.runGroup;
    let claimed: Waiting[] = [];
    let answers: Array<Settled<unknown>> = [];
    try {
      await db.transaction(async (sql) => {
        const ordered = [...group].sort((a, b) => (claimId(a.claim) < claimId(b.claim) ? -1 : 1));
        // Sent first; the runner's reads follow it without waiting (GroupHooks.admitted).
        const won = store.claimKeys(sql, ordered.map((w) => w.claim), IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS);
        let known: readonly boolean[] | undefined;
        const admitted = won.then((ids) => (known = group.map((w) => ids.has(claimId(w.claim)))));
        let settled = false;
        await runGroup(sql, group.map((w) => ({ payload: w.work.payload, key: w.claim.key })), {
          admitted,
          settle(outcomes) {
            if (settled) throw new Error('a group runner settled twice');
            // A key is completed only by the group that claimed it: an outcome for any other member is a defect.
            if (!known || known.some((run, k) => run !== (outcomes[k] !== undefined))) {
              throw new Error('a group runner settled other members than those admitted');
            }
            settled = true;
            claimed = group.filter((_, k) => outcomes[k] !== undefined);
            const kept = storeOutcomes(sql, claimed, outcomes.filter((o) => o !== undefined));
            answers = kept.answers;
            return kept.stored.then(() => undefined);
          },
        });
        // Whatever the runner did, the claims are answered before COMMIT; a runner that never settled changed nothing.
        const mine = await admitted;
        if (!settled) {
          if (mine.some(Boolean)) throw new Error('a group runner returned without settling its members');
          claimed = [];
        }
      });
    } catch {
      // Nothing of the group committed, or (a failure after COMMIT) all of it: the usual path tells which, key by key,
      // answering a committed member from its stored outcome.
      for (const waiting of group) await usual(waiting).then(waiting.resolve, waiting.reject);
      return;
    }
    const answered = claimed.map((waiting, k) => () => {
      const result = answers[k]!;
      if (result.ok) waiting.resolve({ replayed: false, value: result.value });
      else waiting.reject(result.error);
    });
    inTurns(answered);
    for (const waiting of group) if (!claimed.includes(waiting)) await usual(waiting).then(waiting.resolve, waiting.reject);
  }

  async function drain(byLane: Map<string, Waiting[]>, lane: string, queue: Waiting[]): Promise<void> {
    while (queue.length > 0) {
      const group = takeGroup(queue);
      try {
        await together(group);
      } catch (error) {
        // Only a defect gets here (every path above settles its members); still, nobody may wait forever.
        for (const waiting of group) waiting.reject(error);
      }
    }
    byLane.delete(lane);
  }

  return {
    submit<P, R, T>(claim: IdempotencyClaim, work: SharedWork<P, R, T>): Promise<IdempotentOutcome<T>> {
      const erased = work as unknown as AnyWork;
      const byLane = lanes.get(erased.runGroup) ?? new Map<string, Waiting[]>();
      lanes.set(erased.runGroup, byLane);
      return new Promise<IdempotentOutcome<unknown>>((resolve, reject) => {
        const waiting: Waiting = { claim, work: erased, keys: [...work.keys, `idempotency:${claimId(claim)}`], resolve, reject };
        const queue = byLane.get(work.lane);
        if (queue) return void queue.push(waiting);
        const fresh = [waiting];
        byLane.set(work.lane, fresh);
        void drain(byLane, work.lane, fresh);
      }) as Promise<IdempotentOutcome<T>>;
    },
  };
}
