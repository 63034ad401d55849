/** Usage: per-minute and monthly operation allowances per account and surface, reserved before execution. */
export type { Allowance, PeriodUsage, Reservation, Surface } from './contract.ts';
export { createUsageService } from './service.ts';
export type { UsageService } from './service.ts';
