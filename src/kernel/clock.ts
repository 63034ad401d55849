/** The source of the current time. Injected so that expiry and ordering logic can be tested without sleeping. */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };
