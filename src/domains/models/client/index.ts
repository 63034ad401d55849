// The OpenAI-compatible model client (docs/models.md).
export { createOpenAiCompatibleModel } from './model.ts';
export { MODEL_CLIENT_LIMITS, type ModelClientLimits, type ModelClientSettings } from './settings.ts';
