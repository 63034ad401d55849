import type { ModelConfig } from '../config-model.ts';
import { createOpenAiCompatibleModel, type ModelPort } from '../domains/models/index.ts';
import { isPublicAddress } from '../net/guarded-fetch.ts';

/** The configured model (docs/models.md), or none: the model-backed endpoints then answer `unavailable`. */
export function modelOf(config: ModelConfig | undefined): ModelPort | undefined {
  return config === undefined ? undefined : createOpenAiCompatibleModel({ ...config, isPublicAddress });
}
