import { z } from 'zod';
import { MAX_SECTION_ITEMS, ReviewStateSchema, SECTION_KINDS, SectionItemSchema, StalenessSchema, type Section } from '../../domains/synthesis/index.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation, type AnyOperation } from './operation.ts';
import { SCOPE_BOUND_FIELDS, authorizedScope } from './scope-fields.ts';

// get_living_synthesis (docs/synthesis.md): a scope's brief as last built, compared with the records now. Building
// and accepting are people's acts on the workspace page; no tool or route does either.

const SectionKindSchema = z.enum(SECTION_KINDS);

const SectionOut = z.object({
  section: SectionKindSchema,
  title: z.string(),
  state: ReviewStateSchema.describe(
    'unbuilt: nobody built it yet. draft: built, not accepted by a person: do not present it as agreed. accepted: a person accepted this build and its evidence still holds. stale: its evidence changed since it was built (whatever its acceptance): its text may no longer be true',
  ),
  trusted: z.boolean().describe('True only for an accepted section whose evidence still holds: the only state that is trusted shared memory (spec 4.3 rule 8)'),
  build: z
    .object({
      number: z.number().int().describe('How many times the section was built with other results'),
      fingerprint: z.string().describe('The fingerprint of the records this build was made from'),
      method: z.literal('deterministic').describe('Built deterministically from knowledge records; no model wrote it'),
      builtAt: z.iso.datetime(),
      acceptedAt: z.iso.datetime().nullable().describe('When a person accepted this build; null for a draft'),
      text: z.string().describe('The section as text: one line per item with its citation'),
      items: z.array(SectionItemSchema).describe(`At most ${MAX_SECTION_ITEMS} items, each with its evidence (path, revision, lines)`),
      truncated: z.boolean().describe(`True when the records held more than ${MAX_SECTION_ITEMS} items: not proof of absence`),
    })
    .nullable()
    .describe('The build shown; null while unbuilt'),
  currentFingerprint: z.string().describe('The fingerprint of the records as they are now: a rebuild would store this'),
  staleness: StalenessSchema.nullable().describe('For a stale section: the records added, removed and changed since its build'),
});

function presentSection(s: Section): z.input<typeof SectionOut> {
  return {
    section: s.section,
    title: s.title,
    state: s.state,
    trusted: s.trusted,
    build: s.build && {
      number: s.build.number,
      fingerprint: s.build.fingerprint,
      method: s.build.method,
      builtAt: s.build.builtAt.toISOString(),
      acceptedAt: s.build.accepted ? s.build.accepted.at.toISOString() : null,
      text: s.build.text,
      items: s.build.items,
      truncated: s.build.truncated,
    },
    currentFingerprint: s.currentFingerprint,
    staleness: s.staleness,
  };
}

/** `get_living_synthesis`. */
const getLivingSynthesis = defineOperation({
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  tags: ['knowledge'],
  id: 'getLivingSynthesis',
  summary: "A scope's living brief, with evidence and review state",
  description:
    "The sections of a context scope's living brief (confirmed decisions, candidate decisions awaiting review, open " +
    'questions, open commitments, tensions, current facts), each as last built from the knowledge records, with the ' +
    'evidence of every item (note path, revision, lines) and its review state. Sections are built deterministically ' +
    '(method "deterministic"); no model drafts them here (modelDrafting.available is false). Only a section with ' +
    '`trusted: true` (accepted by a person, evidence unchanged) is agreed shared memory; a draft is unreviewed and a ' +
    'stale section may no longer be true. Reading never rebuilds: people build and accept sections on the workspace ' +
    'page. Needs a context scope of the mapping that you may use; any other contextScopeId is not_found. ' +
    `Bounded: at most ${MAX_SECTION_ITEMS} items per section, \`truncated\` beyond.`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    sections: z.array(SectionKindSchema).min(1).max(SECTION_KINDS.length).optional().describe('Which sections; default all, in their order'),
  }),
  output: z.object({
    mappingId: z.uuid(),
    contextScopeId: z.uuid(),
    method: z.literal('deterministic'),
    modelDrafting: z
      .object({ available: z.literal(false), reason: z.string() })
      .describe('Whether a model drafts section text here: it does not, and says why'),
    sections: z.array(SectionOut),
  }),
  errors: ['invalid_request', 'not_found', 'device_encrypted'],
  rest: [{ method: 'GET', path: '/knowledge/synthesis' }],
  mcp: {
    name: 'get_living_synthesis',
    title: 'Living synthesis of a scope',
    advice: 'Present only trusted sections as what the team agreed; label drafts and stale sections as such, and cite evidence.path and lines.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const authorized = await authorizedScope(ctx, input);
    const sections = await ctx.services.synthesis.read(authorized, input.sections);
    return {
      mappingId: input.mappingId,
      contextScopeId: authorized.scope.id,
      method: 'deterministic' as const,
      modelDrafting: { available: false as const, reason: 'No model is configured on this server: sections are built deterministically from knowledge records.' },
      sections: sections.map(presentSection),
    };
  },
});

/** The living synthesis read. */
export const SYNTHESIS_OPERATIONS: readonly AnyOperation[] = [getLivingSynthesis];
