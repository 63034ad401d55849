/** Education generation (spec 4.7 "generate"; docs/education.md): the request, the prompt, the check of a draft. */
export { GENERATE_INTENTS, GENERATE_LIMITS, GENERATE_REVIEW_NOTE, GenerateInputSchema, GenerateResultSchema } from './contract.ts';
export type { GenerateInput, GenerateIntent, GenerateResult } from './contract.ts';
export { generatePrompt, generateSystemMessage } from './prompt.ts';
export { checkGeneratedText, citedSourceIds } from './check.ts';
