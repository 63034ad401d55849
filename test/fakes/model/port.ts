/**
 * A model port pointed at a fake model server, built as the gateway builds it (src/config-model.ts settings and the
 * guarded-fetch address rule), for tests that need a ModelPort without a started gateway (the ledger, the runner).
 */
import { parseModelConfig } from '../../../src/config-model.ts';
import { createOpenAiCompatibleModel, type ModelClientSettings, type ModelPort } from '../../../src/domains/models/index.ts';
import { isPublicAddress } from '../../../src/net/guarded-fetch.ts';
import { modelEnvOf, type ModelFake } from './server.ts';

/** The fake's port; `env` overrides KGATE_MODEL_* settings, `settings` the client's (e.g. small `limits`). */
export function modelPortOf(fake: ModelFake, options: { env?: Record<string, string>; settings?: Partial<ModelClientSettings> } = {}): ModelPort {
  const config = parseModelConfig(modelEnvOf(fake, options.env));
  if (config === undefined) throw new Error('the fake model settings name no model');
  return createOpenAiCompatibleModel({ ...config, isPublicAddress, ...options.settings });
}
