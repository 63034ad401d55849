/**
 * Availability intervals of a list of items as typed arrays, with the items ordered by the day they start and by the
 * day they end: an answer at a cutoff compares numbers, and the changes of an interval of days walk only the items
 * that start or end inside it instead of the whole pack.
 */
import type { AvailabilityInterval } from './availability.ts';
import type { CalendarDate } from './contract.ts';

/** A day after every real cutoff: the end of an interval that never ends. */
export const NEVER = 99_999_999;

/** A calendar date as a number that orders the same way (2024-08-20 is 20240820), for typed arrays. */
export function dayNumber(date: CalendarDate): number {
  return Number(date.slice(0, 4)) * 10_000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/** The intervals of a list of items (in pack order), as day numbers, with two orders over them. */
export class IntervalTable {
  /** By item: the first day it is available, and the day it stops (NEVER: it does not). */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Every item, by start day, then pack order. */
  readonly byStart: Int32Array;
  /** The items that stop, by end day, then pack order. */
  readonly byEnd: Int32Array;

  constructor(intervals: readonly AvailabilityInterval[]) {
    const size = intervals.length;
    this.starts = new Int32Array(size);
    this.ends = new Int32Array(size);
    intervals.forEach((interval, item) => {
      this.starts[item] = dayNumber(interval.availableFrom);
      this.ends[item] = interval.endsOn === undefined ? NEVER : dayNumber(interval.endsOn);
    });
    const { starts, ends } = this;
    this.byStart = Int32Array.from({ length: size }, (_, item) => item).sort((a, b) => starts[a]! - starts[b]! || a - b);
    const ending: number[] = [];
    for (let item = 0; item < size; item++) if (ends[item]! !== NEVER) ending.push(item);
    this.byEnd = Int32Array.from(ending).sort((a, b) => ends[a]! - ends[b]! || a - b);
  }

  get size(): number {
    return this.starts.length;
  }

  /** Whether the item is available on `day`. */
  availableAt(item: number, day: number): boolean {
    return this.starts[item]! <= day && this.ends[item]! > day;
  }

  /** The items that start in the days (after, until], in byStart order. */
  startingIn(after: number, until: number): { order: Int32Array; from: number; to: number } {
    return { order: this.byStart, from: firstAfter(this.byStart, this.starts, after), to: firstAfter(this.byStart, this.starts, until) };
  }

  /** The items that end in the days (after, until], in byEnd order. */
  endingIn(after: number, until: number): { order: Int32Array; from: number; to: number } {
    return { order: this.byEnd, from: firstAfter(this.byEnd, this.ends, after), to: firstAfter(this.byEnd, this.ends, until) };
  }
}

/** The first position of `order` whose item's day (in `days`) is after `day`; `order` is sorted by those days. */
function firstAfter(order: Int32Array, days: Int32Array, day: number): number {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (days[order[mid]!]! <= day) low = mid + 1;
    else high = mid;
  }
  return low;
}
