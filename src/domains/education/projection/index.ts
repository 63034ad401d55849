/**
 * The education projection (docs/education.md, "Projection"): portable education entities and provenance-backed
 * relationships in, a deterministic evaluation with stable finding identities and a decision-signal handoff out.
 * Pure: no I/O, no clock.
 */
export {
  DecisionSignalSchema,
  EntityKindSchema,
  FINDING_KINDS,
  FindingKindSchema,
  FindingSchema,
  PROJECTION_LIMITS,
  PROJECTION_RULES_VERSION,
  ProjectionInputSchema,
  ProjectionOutputSchema,
  RelationshipKindSchema,
  SeveritySchema,
  SignalSchema,
} from './contract.ts';
export type {
  DecisionSignal,
  EntityKind,
  EntityRef,
  Finding,
  FindingKind,
  ProjectionInput,
  ProjectionOutput,
  RelationshipKind,
  RelationshipRef,
  Severity,
  Signal,
} from './contract.ts';
export { checkProjectionInput, evaluateProjection } from './evaluate.ts';
export { FINDING_RULES, findingId } from './findings.ts';
export { ACYCLIC_KINDS, RELATIONSHIP_ENDPOINTS } from './relationships.ts';
