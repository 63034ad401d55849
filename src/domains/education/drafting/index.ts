/** What the three drafting endpoints share: request fields, the prompt's data block, reading a model's answer. */
export { CourseSchema, DRAFTING_FIELD_LIMITS, RefSchema, SourceSchema, StandardSchema, blockText, lineText, uniqueBy } from './fields.ts';
export type { Course, Source, Standard } from './fields.ts';
export { invalid, parseModelObject } from './model-output.ts';
export type { Checked } from './model-output.ts';
export { DATA_BEGIN, DATA_END, DATA_RULES, dataMessage, inputTokenBound } from './prompt.ts';
export type { DraftPrompt, PromptMessage } from './prompt.ts';
