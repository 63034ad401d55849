/**
 * Requests and answers of the model-backed education operations (spec 4.7, docs/education.md). The spec does not
 * list their fields and the server validates every request strictly (unknown fields are refused, every list and text
 * is bounded), so the SDK types them as JSON objects and names the few fields it relies on; the server's OpenAPI
 * document (`/api/product/v1/openapi.json`) gives each schema in full.
 */
import type { EducationSafetyReceipt, IntelligenceUsageReceipt, RuntimeEnvelope, RuntimeReceipt } from './envelope.js';

/** A JSON object as the server's schema for the operation describes it. */
export type EducationJson = Record<string, unknown>;

/** Every model-backed answer is a proposal or advice for a person to review, never a decision about a learner. */
export interface EducationProposal extends EducationJson {
  status?: 'proposed' | 'advisory';
  /** A note for the teacher, where the answer has one. */
  review?: string;
}

/** reviewPractice: one authorized course and standard, two to five sessions of aggregate, teacher-confirmed evidence. */
export type PracticeReviewInput = EducationJson;
/** `service.education-practice-review`: poll, short-answer and sort proposals with educator-only guides. */
export type PracticeReview = EducationProposal;

/** draftAssessment: course context, standards, learning targets, optional sources, item count and types, DOK levels. */
export type AssessmentDraftInput = EducationJson;
/** `service.education-assessment-draft`: a strict structured draft, kept as proposed. */
export type AssessmentDraft = EducationProposal;

/** reviewQuality: one artifact revision, its course and standards, sources, policy constraints. */
export type QualityReviewInput = EducationJson;
/** `service.education-quality-review`: ratings and findings, with the server's own reading level; advisory. */
export type QualityReview = EducationProposal;

/** draftRubric: course context, standards, learning targets, criterion count, 2 to 6 level labels; `rubricId` to revise. */
export type RubricDraftInput = EducationJson;
/** `service.education-rubric-draft`: the stored proposed version, with its `rubricId` and `version`. */
export interface RubricDraft extends EducationProposal {
  rubricId: string;
  version: number;
}
/** listRubrics: one page. */
export interface ListRubricsParams {
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** Page size; the server's default is 20. */
  limit?: number;
}
/** `service.education-rubrics`: the installation's rubrics, most recently drafted first. */
export interface RubricList {
  rubrics: EducationJson[];
  nextCursor: string | null;
  truncated: boolean;
}
/** `service.education-rubric`: one rubric with its latest versions, newest first. */
export interface Rubric {
  rubric: EducationJson;
  versions: EducationJson[];
  truncated: boolean;
}

/** generateImage: the context (plan, teach, create, communicate) and an educator's visual brief; `format` png, jpeg or webp. */
export type ImageInput = EducationJson;
/** `service.education-image`: the image as base64 with its media type, size and SHA-256, the alt text, a prompt summary. */
export interface EducationImage extends EducationProposal {
  image: { mediaType: string; format: string; size: string; byteLength: number; sha256: string; base64: string };
  altText: string;
}

/** studentGuidance: the learner's message on a live teacher-authored activity under a fail-closed policy. */
export type StudentGuidanceInput = EducationJson;
/** `service.education-student-guidance`: one kind of guidance; `withheld: true` when a fixed safe text replaced the model's. */
export type StudentGuidance = EducationJson;

/**
 * One event of a streamed generation (spec 6.3), in order: one `ready` once the call was admitted and its cost
 * reserved, `delta`s of text as the model writes, then one `done` with the V1 envelope a JSON call would have
 * answered (its data, problems and receipts). A call refused before its stream started is one `done` event.
 */
export type GenerationStreamEvent<K extends string, D> =
  | { type: 'ready'; requestId?: string; [fact: string]: unknown }
  | { type: 'delta'; text: string }
  | { type: 'done'; envelope: RuntimeEnvelope<K, D> };

/**
 * generateEducationContent: a workflow intent (lesson-plan, weekly-plan, activity, adaptation, reteach,
 * family-communication, substitute-plan), the course, authorized standards, explicitly selected sources (the only ones
 * the draft may cite), the teacher's request, an optional education context packet, output options.
 */
export type GenerationInput = EducationJson;
/** `service.education-generation`: a proposed teacher-facing Markdown draft and what it cites. */
export interface EducationGeneration extends EducationProposal {
  status: 'proposed';
  intent: string;
  locale: string;
  format: 'markdown';
  text: string;
  citations: { standards: string[]; sources: string[] };
  review: string;
}

/** The usage receipt of a metered answer (also on a billable failure), or undefined (a refusal reserved nothing). */
export function usageReceiptOf(envelope: { receipts: RuntimeReceipt[] }): IntelligenceUsageReceipt | undefined {
  return envelope.receipts.find((r): r is IntelligenceUsageReceipt => r.kind === 'service.product-intelligence-usage');
}

/** The safety receipt of a studentGuidance answer, or undefined. */
export function safetyReceiptOf(envelope: { receipts: RuntimeReceipt[] }): EducationSafetyReceipt | undefined {
  return envelope.receipts.find((r): r is EducationSafetyReceipt => r.kind === 'service.education-safety');
}
