/** The automation gateway's domain (docs/automation.md): events, triggers, runs, webhook endpoints and executions. */
export * from './contract.ts';
export { insertExecution, listExecutions } from './executions.ts';
export type { NewExecution } from './executions.ts';
export { createAutomationService } from './service.ts';
export type { AutomationDependencies } from './service.ts';
export { filterTakes } from './triggers/match.ts';
export * from './webhooks/index.ts';
