/**
 * The contract of the education projection (docs/education.md, "Projection"): portable education entities and the
 * provenance-backed relationships between them in, a deterministic evaluation out. Every list and string is bounded
 * here; the whole input is bounded again by its size (PROJECTION_LIMITS.inputBytes, checked by the evaluation).
 */
import { z } from 'zod';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';
import { CONTENT_HASH_PATTERN } from '../../../kernel/hashing.ts';

/** Every bound of the projection's input and output, in one place (docs/education.md lists them). */
export const PROJECTION_LIMITS = Object.freeze({
  courses: 500,
  standards: 3_000,
  learningTargets: 3_000,
  artifacts: 3_000,
  evidence: 5_000,
  /** All five entity lists together. */
  entities: 10_000,
  /** Relationship statements, before statements of the same relationship are merged. */
  relationships: 20_000,
  /** The input as compact JSON (no whitespace), in UTF-8 bytes. */
  inputBytes: 4 * 1024 * 1024,
  /** Findings answered; the totals count every finding, and `truncated` says when some were left out. */
  findings: 1_000,
  idLength: 200,
  titleLength: 500,
  codeLength: 100,
  termLength: 100,
  frameworkLength: 200,
  statementLength: 2_000,
  systemLength: 100,
  recordLength: 500,
  minEvidenceMaxAgeDays: 1,
  maxEvidenceMaxAgeDays: 3_650,
  defaultEvidenceMaxAgeDays: 365,
});

/** The version of the rules: a finding's kind keeps its meaning within one version. */
export const PROJECTION_RULES_VERSION = 1;

/** A bounded text without control characters (identifiers, codes, names of systems). */
function plainText(max: number, description: string) {
  return z
    .string()
    .min(1)
    .max(max)
    .refine((value) => !hasControlCharacters(value), 'must not contain control characters')
    .describe(description);
}

/** A bounded free text (titles, statements): line breaks allowed, compared after normalization, never answered. */
function freeText(max: number, description: string) {
  return z.string().min(1).max(max).describe(description);
}

const EntityIdSchema = plainText(PROJECTION_LIMITS.idLength, 'Stable id of the entity in your system; unique across all entity lists');
const InstantSchema = z.iso.datetime({ offset: true });
const ContentHashSchema = z
  .string()
  .regex(CONTENT_HASH_PATTERN)
  .describe('`sha256:` + hex of the content bytes; entities of one kind with the same hash are duplicates');

/** The kinds of entities, as the education domain pack names them. */
export const EntityKindSchema = z.enum(['course', 'standard', 'learning-target', 'artifact', 'evidence']);
/** See EntityKindSchema. */
export type EntityKind = z.infer<typeof EntityKindSchema>;

/** A course. Without a code, its title (and term) decide whether two courses are duplicates. */
export const CourseSchema = z.strictObject({
  id: EntityIdSchema,
  title: freeText(PROJECTION_LIMITS.titleLength, 'Title of the course'),
  code: plainText(PROJECTION_LIMITS.codeLength, 'Course code in your system').optional(),
  term: plainText(PROJECTION_LIMITS.termLength, 'Term or school year, e.g. 2024-25').optional(),
});

/** A standard of a framework, named by its human-readable code. */
export const StandardSchema = z.strictObject({
  id: EntityIdSchema,
  framework: plainText(PROJECTION_LIMITS.frameworkLength, 'The framework it belongs to, e.g. its CASE document identifier or name'),
  code: plainText(PROJECTION_LIMITS.codeLength, 'Its code in the framework, e.g. 8.EE.A.1'),
});

/** A learning target ("I can ..."). */
export const LearningTargetSchema = z.strictObject({
  id: EntityIdSchema,
  statement: freeText(PROJECTION_LIMITS.statementLength, 'The target as written; used only to find duplicates, never answered'),
});

/** An artifact (lesson, task, assessment, resource); its content never travels here, at most its hash. */
export const ArtifactSchema = z.strictObject({
  id: EntityIdSchema,
  contentHash: ContentHashSchema.optional(),
});

/** A piece of evidence (a work sample, an observation, a review) and when it was observed. */
export const EvidenceSchema = z.strictObject({
  id: EntityIdSchema,
  observedAt: InstantSchema.describe('When the evidence was observed; older than evidenceMaxAgeDays before asOf is stale'),
  contentHash: ContentHashSchema.optional(),
});

/** Who asserted a relationship: which system, which record of it, and when. */
export const ProvenanceSchema = z.strictObject({
  system: plainText(PROJECTION_LIMITS.systemLength, 'The system that asserted the relationship, e.g. sis, lms, curriculum-office'),
  record: plainText(PROJECTION_LIMITS.recordLength, 'The record of that system that asserts it'),
  assertedAt: InstantSchema.describe('When that record asserted it'),
});

/** The kinds of relationships, read "from <kind> to" ("artifact aligns-to standard"). */
export const RelationshipKindSchema = z.enum(['aligns-to', 'assesses', 'evidences', 'part-of', 'prerequisite-of', 'derived-from', 'crosswalks-to']);
/** See RelationshipKindSchema. */
export type RelationshipKind = z.infer<typeof RelationshipKindSchema>;

/** One statement of a relationship between two entities; statements of the same (kind, from, to) are merged. */
export const RelationshipStatementSchema = z.strictObject({
  kind: RelationshipKindSchema,
  from: EntityIdSchema.describe('Id of the entity the relationship goes from'),
  to: EntityIdSchema.describe('Id of the entity the relationship goes to'),
  provenance: ProvenanceSchema.nullish().describe('Who asserted it; a relationship that no statement backs is reported and not trusted'),
});

/** The input of the projection. */
export const ProjectionInputSchema = z.strictObject({
  asOf: InstantSchema.describe('The instant the evaluation is made for (evidence age is measured to it); the answer never depends on the server clock'),
  evidenceMaxAgeDays: z
    .number()
    .int()
    .min(PROJECTION_LIMITS.minEvidenceMaxAgeDays)
    .max(PROJECTION_LIMITS.maxEvidenceMaxAgeDays)
    .optional()
    .describe(`Evidence older than this many days before asOf is stale; default ${PROJECTION_LIMITS.defaultEvidenceMaxAgeDays}`),
  courses: z.array(CourseSchema).max(PROJECTION_LIMITS.courses).optional(),
  standards: z.array(StandardSchema).max(PROJECTION_LIMITS.standards).optional(),
  learningTargets: z.array(LearningTargetSchema).max(PROJECTION_LIMITS.learningTargets).optional(),
  artifacts: z.array(ArtifactSchema).max(PROJECTION_LIMITS.artifacts).optional(),
  evidence: z.array(EvidenceSchema).max(PROJECTION_LIMITS.evidence).optional(),
  relationships: z.array(RelationshipStatementSchema).max(PROJECTION_LIMITS.relationships).optional(),
});
/**
 * The input as validated. Lists left out are empty; nothing is added or changed by validation, so that the input's
 * size is the size of what the caller sent.
 */
export type ProjectionInput = z.output<typeof ProjectionInputSchema>;
/** One relationship statement as validated. */
export type RelationshipStatement = z.output<typeof RelationshipStatementSchema>;

/** The finding kinds, in the order findings of one severity are listed. */
export const FINDING_KINDS = [
  'dangling-reference',
  'relationship-kind-mismatch',
  'relationship-cycle',
  'relationship-unsourced',
  'duplicate-entity',
  'target-unaligned',
  'standard-uncovered',
  'artifact-evidence-missing',
  'artifact-evidence-stale',
  'artifact-unaligned',
] as const;
/** A finding kind. */
export const FindingKindSchema = z.enum(FINDING_KINDS);
/** See FindingKindSchema. */
export type FindingKind = z.infer<typeof FindingKindSchema>;

/** How serious a finding is; findings are listed by severity first. */
export const SeveritySchema = z.enum(['error', 'warning', 'info']);
/** See SeveritySchema. */
export type Severity = z.infer<typeof SeveritySchema>;

/** What a human decision step may take up; never a decision itself. */
export const DecisionSignalSchema = z.enum([
  'resolve-reference',
  'review-relationship',
  'break-cycle',
  'confirm-provenance',
  'review-duplicate',
  'align-target',
  'add-artifact',
  'add-evidence',
  'refresh-evidence',
  'align-artifact',
]);
/** See DecisionSignalSchema. */
export type DecisionSignal = z.infer<typeof DecisionSignalSchema>;

/** An entity a finding concerns. */
export const EntityRefSchema = z.object({ kind: EntityKindSchema, id: z.string() });
/** See EntityRefSchema. */
export type EntityRef = z.infer<typeof EntityRefSchema>;

/** A relationship a finding concerns: its (kind, from, to), which is its identity. */
export const RelationshipRefSchema = z.object({ kind: RelationshipKindSchema, from: z.string(), to: z.string() });
/** See RelationshipRefSchema. */
export type RelationshipRef = z.infer<typeof RelationshipRefSchema>;

/** One finding: a situation in the input that a person may want to act on. */
export const FindingSchema = z.object({
  id: z.string().describe('fnd_ + 32 hex digits: the same kind, entities and relationships give the same id in every call'),
  kind: FindingKindSchema,
  severity: SeveritySchema,
  signal: DecisionSignalSchema,
  entities: z.array(EntityRefSchema).describe('The entities it concerns, sorted by id'),
  relationships: z.array(RelationshipRefSchema).describe('The relationships it concerns, sorted by kind, from, to'),
  missingIds: z.array(z.string()).optional().describe('dangling-reference: the ids no entity has'),
  newestObservedAt: z.iso.datetime().optional().describe('artifact-evidence-stale: when its newest evidence was observed'),
});
/** See FindingSchema. */
export type Finding = z.infer<typeof FindingSchema>;

/** One decision signal: a kind of human decision, and the findings it would take up. */
export const SignalSchema = z.object({
  id: z.string().describe('sig_ + 32 hex digits, from the signal and the ids of all its findings'),
  signal: DecisionSignalSchema,
  severity: SeveritySchema.describe('The most serious severity among its findings'),
  findingCount: z.number().int().describe('How many findings it takes up, answered or not'),
  findingIds: z.array(z.string()).describe('The ids of its answered findings, in the order findings are listed'),
});
/** See SignalSchema. */
export type Signal = z.infer<typeof SignalSchema>;

const countsByKind = z.object(Object.fromEntries(FINDING_KINDS.map((kind) => [kind, z.number().int()])) as Record<FindingKind, z.ZodNumber>);

/** The output of the projection. */
export const ProjectionOutputSchema = z.object({
  rulesVersion: z.literal(PROJECTION_RULES_VERSION),
  asOf: z.iso.datetime().describe('asOf as evaluated, in UTC'),
  evidenceMaxAgeDays: z.number().int(),
  counts: z.object({
    courses: z.number().int(),
    standards: z.number().int(),
    learningTargets: z.number().int(),
    artifacts: z.number().int(),
    evidence: z.number().int(),
    relationshipStatements: z.number().int(),
    relationships: z.number().int().describe('Distinct (kind, from, to)'),
  }),
  coverage: z.object({
    learningTargets: z.object({ total: z.number().int(), aligned: z.number().int() }),
    standards: z.object({ total: z.number().int(), covered: z.number().int() }),
    artifacts: z.object({ total: z.number().int(), aligned: z.number().int(), withCurrentEvidence: z.number().int() }),
  }),
  findings: z.array(FindingSchema),
  findingTotals: z.object({
    total: z.number().int(),
    error: z.number().int(),
    warning: z.number().int(),
    info: z.number().int(),
    byKind: countsByKind,
  }),
  truncated: z.boolean().describe(`More than ${PROJECTION_LIMITS.findings} findings: the first ones in order are answered`),
  decisionSignals: z.array(SignalSchema),
});
/** See ProjectionOutputSchema. */
export type ProjectionOutput = z.infer<typeof ProjectionOutputSchema>;
