/**
 * get_published_intelligence_changes: what changed in the interval (from, asOf] (docs/packs.md). The rules:
 * - `added`: assertions not available at `from` and available at `asOf`. One that became available and also ended
 *   inside the interval is not listed anywhere: at neither end was it available, so it is no change between them.
 * - `superseded` and `retracted`: assertions available at `from` and no longer at `asOf`, each listed once, under
 *   what ended its availability: `retracted` when its retraction date is the end (also when it was superseded the
 *   same day: the withdrawal is the stronger fact), else `superseded`, with the assertions that superseded it on
 *   that day. So state(asOf) is exactly state(from) minus those two lists plus `added`.
 * - `sourceVersionsAdded`: source versions that became available in the interval (a version never stops).
 * - `insightsAdded` and `insightsWithdrawn`: the same rules as `added` and the two ending lists, for insights.
 * Each list is ordered by its date (`on`, or `availableFrom` for `added`), then pack order, and cut at `limit`
 * (then `truncated` is true). Every date named is at most `asOf`, and every id names an item available by then.
 * The work follows the items that start or end inside the interval (interval-table.ts), never the whole pack.
 */
import { KgateError } from '../../kernel/errors.ts';
import type { CalendarDate, ChangesAnswer } from './contract.ts';
import { dayNumber, type IntervalTable } from './interval-table.ts';
import { assertionAnswer, type PackFacts } from './pack-facts.ts';
import { boundedLimit, checkDate, PACK_ANSWER_LIMITS } from './paging.ts';

/** The changes answer of one pack version for the interval (from, asOf]; `from` after `asOf` is `invalid_request`. */
export function answerChanges(facts: PackFacts, input: { from: CalendarDate; asOf: CalendarDate; limit?: number | undefined }): ChangesAnswer {
  const { from, asOf } = input;
  checkDate(from, 'from');
  checkDate(asOf, 'asOf');
  if (from > asOf) throw new KgateError('invalid_request', 'from is a date on or before asOf.', { field: 'from' });
  const limit = boundedLimit(input.limit, PACK_ANSWER_LIMITS.changes);
  const [fromDay, asOfDay] = [dayNumber(from), dayNumber(asOf)];
  const { pack, availability } = facts;
  let truncated = false;
  /** Keeps at most `limit` items, noting when there were more. */
  const keep = (list: number[], item: number): void => {
    if (list.length < limit) list.push(item);
    else truncated = true;
  };

  const added = appeared(facts.assertionDays, fromDay, asOfDay, limit);
  const superseded: number[] = [];
  const retracted: number[] = [];
  const ending = facts.assertionDays.endingIn(fromDay, asOfDay);
  for (let k = ending.from; k < ending.to; k++) {
    // Once both lists are full and one more was seen, nothing further changes the answer.
    if (superseded.length === limit && retracted.length === limit && truncated) break;
    const a = ending.order[k]!;
    // It ends inside the interval; it counts when it was available at `from`.
    if (facts.assertionDays.starts[a]! > fromDay) continue;
    const interval = availability.assertions[a]!;
    keep(pack.assertions[a]!.retracted === interval.endsOn ? retracted : superseded, a);
  }
  const versions = appeared(facts.versionDays, fromDay, asOfDay, limit);
  const insightsAdded = appeared(facts.insightDays, fromDay, asOfDay, limit);
  const insightsWithdrawn = ended(facts.insightDays, fromDay, asOfDay, limit);
  truncated ||= added.truncated || versions.truncated || insightsAdded.truncated || insightsWithdrawn.truncated;

  const insight = (i: number, on: CalendarDate) => ({ id: pack.insights[i]!.id, statement: pack.insights[i]!.statement, on });
  return {
    pack: facts.ref,
    from,
    asOf,
    added: added.items.map((a) => assertionAnswer(facts, a, asOf)),
    superseded: superseded.map((a) => ({
      id: pack.assertions[a]!.id,
      statement: pack.assertions[a]!.statement,
      on: availability.assertions[a]!.endsOn!,
      // They became available on that day, at most asOf: naming them leaks nothing.
      by: [...availability.assertions[a]!.supersededBy],
    })),
    retracted: retracted.map((a) => ({ id: pack.assertions[a]!.id, statement: pack.assertions[a]!.statement, on: availability.assertions[a]!.endsOn! })),
    sourceVersionsAdded: versions.items.map((flat) => {
      const { source, version } = facts.versions[flat]!;
      return {
        source: pack.sources[source]!.id,
        title: pack.sources[source]!.title,
        version: pack.sources[source]!.versions[version]!.version,
        on: availability.sourceVersions[source]![version]!,
      };
    }),
    insightsAdded: insightsAdded.items.map((i) => insight(i, availability.insights[i]!.availableFrom)),
    insightsWithdrawn: insightsWithdrawn.items.map((i) => insight(i, availability.insights[i]!.endsOn!)),
    truncated,
  };
}

/** Up to `limit` items not available on `fromDay` and available on `asOfDay`, by start day then pack order. */
function appeared(table: IntervalTable, fromDay: number, asOfDay: number, limit: number): { items: number[]; truncated: boolean } {
  const items: number[] = [];
  const starting = table.startingIn(fromDay, asOfDay);
  for (let k = starting.from; k < starting.to; k++) {
    const item = starting.order[k]!;
    if (table.ends[item]! <= asOfDay) continue;
    if (items.length === limit) return { items, truncated: true };
    items.push(item);
  }
  return { items, truncated: false };
}

/** Up to `limit` items available on `fromDay` and not on `asOfDay`, by end day then pack order. */
function ended(table: IntervalTable, fromDay: number, asOfDay: number, limit: number): { items: number[]; truncated: boolean } {
  const items: number[] = [];
  const ending = table.endingIn(fromDay, asOfDay);
  for (let k = ending.from; k < ending.to; k++) {
    const item = ending.order[k]!;
    if (table.starts[item]! > fromDay) continue;
    if (items.length === limit) return { items, truncated: true };
    items.push(item);
  }
  return { items, truncated: false };
}
