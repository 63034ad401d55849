/**
 * Student guidance (spec 4.7; docs/education.md): the request and answer, the fixed prompt, reading the model's
 * answer, the safety checks that withhold an answer, a link or a contact, and the safety receipt.
 */
export { AGE_BANDS, GUIDANCE_KINDS, GUIDANCE_LIMITS, GuidanceInputSchema, GuidanceResultSchema, LocaleSchema } from './contract.ts';
export type { GuidanceInput, GuidanceKind, GuidanceResult } from './contract.ts';
export { guidancePrompt } from './prompt.ts';
export { FALLBACK_LOCALE, GUIDANCE_FALLBACKS, readGuidanceAnswer } from './answer.ts';
export type { GuidanceOutcome } from './answer.ts';
export { GUIDANCE_SAFETY_VERSION, SAFETY_CHECKS, WITHHELD_REASONS, checkGuidanceText, linksOut, messagesDirectly, revealsAnswer } from './safety.ts';
export type { SafetyCheck, SafetyVerdict, WithheldReason } from './safety.ts';
export { safetyReceiptOf, storedSafetyOf } from './receipt.ts';
export type { GuidanceSafetyReceipt, StoredSafety } from './receipt.ts';
