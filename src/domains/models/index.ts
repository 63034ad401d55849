/**
 * Models (issue 21): the model port and its contract, the OpenAI-compatible client, and the intelligence cost ledger
 * with the metered runner (docs/models.md, docs/budgets.md).
 */
export * from './contract.ts';

// The OpenAI-compatible model client (docs/models.md).
export { createOpenAiCompatibleModel, MODEL_CLIENT_LIMITS } from './client/index.ts';
export type { ModelClientLimits, ModelClientSettings } from './client/index.ts';

// The intelligence ledger and metered runner (docs/budgets.md).
export { costOf, monthOf } from './ledger/cost.ts';
export { LEDGER_STATES } from './ledger/rows.ts';
export type { LedgerEntry, LedgerState } from './ledger/rows.ts';
export { CONCURRENCY_RETRY_AFTER_SECONDS } from './ledger/store.ts';
export { createModelsService, DEFAULT_DISPATCH_WINDOW_MS, DEFAULT_SETTLE_WINDOW_MS, MAX_RECENT_ROWS, meteredCallerOf } from './runner.ts';
export type { ExpiryResult, ModelsService, ModelsServiceOptions } from './runner.ts';
