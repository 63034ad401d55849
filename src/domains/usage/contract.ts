/** The surfaces with their own allowances (spec 8 rule 2: MCP is counted apart from the REST API). */
export type Surface = 'rest' | 'mcp';

/** Operations an account may run on one surface. */
export interface Allowance {
  perMinute: number;
  perMonth: number;
}

/** One period's state after a reservation. */
export interface PeriodUsage {
  limit: number;
  remaining: number;
  /** Seconds until the period renews. */
  resetSeconds: number;
}

/** A successful reservation: what is left in each period. */
export interface Reservation {
  minute: PeriodUsage;
  month: PeriodUsage;
}
