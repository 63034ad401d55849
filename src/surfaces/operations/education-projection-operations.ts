import { PROJECTION_LIMITS, ProjectionInputSchema, ProjectionOutputSchema, evaluateProjection } from '../../domains/education/index.ts';
import { RUNTIME_CREDENTIALS, defineOperation, type AnyOperation } from './operation.ts';

/** projectEducation: the education projection (docs/education.md, "Projection"). */
const projectEducation = defineOperation({
  id: 'projectEducation',
  summary: 'Education projection',
  description:
    'Evaluates portable education entities (courses, standards, learning targets, artifacts, evidence) and the ' +
    'relationships between them, each statement naming its provenance (system, record, when asserted). Answers ' +
    'deterministic findings (dangling references, wrong endpoint kinds, cycles of prerequisites or derivations, ' +
    'relationships without provenance, duplicates, unaligned targets, uncovered standards, missing or stale evidence), ' +
    'each with a stable id, and the decision signals a person may take up. Read-only: it stores nothing, creates no ' +
    'trusted memory and runs no governed change; a signal is never a decision. The same input, in any order, answers ' +
    `the same output byte for byte. At most ${PROJECTION_LIMITS.entities} entities, ${PROJECTION_LIMITS.relationships} ` +
    `relationship statements and ${PROJECTION_LIMITS.inputBytes} bytes as compact JSON; at most ` +
    `${PROJECTION_LIMITS.findings} findings are answered (truncated says when more exist).`,
  tags: ['runtime', 'education'],
  input: ProjectionInputSchema,
  output: ProjectionOutputSchema,
  errors: ['invalid_request', 'payload_too_large'],
  credentials: RUNTIME_CREDENTIALS,
  scope: 'runtime',
  allowance: 'operation',
  idempotency: 'none',
  // Validating and evaluating ten thousand entities runs on the request thread: such calls take turns there.
  cost: 'heavy',
  product: [
    {
      method: 'POST',
      path: '/api/product/v1/intelligence/education/projection',
      operationId: 'projectEducation',
      kind: 'service.education-projection',
      capability: 'education.projection',
      needs: 'intelligence.execute',
    },
  ],
  run(_ctx, input) {
    return Promise.resolve(evaluateProjection(input));
  },
});

/** The education projection's operations, served only by the Product Runtime. */
export const EDUCATION_PROJECTION_OPERATIONS: readonly AnyOperation[] = [projectEducation];
