import { z } from 'zod';

// The shapes of the relation reads (docs/knowledge.md, "Relations and contradictions"): find_related,
// get_relationship_explanation and get_contradictions.

/** The relation types, in the order find_related answers them. */
export const RELATION_TYPES = ['explicit', 'decision', 'evidence', 'temporal', 'semantic', 'derived'] as const;
/** See RELATION_TYPES. */
export type RelationType = (typeof RELATION_TYPES)[number];

export const RelationTypeSchema = z
  .enum(RELATION_TYPES)
  .describe(
    'explicit: WikiLinks, embeds and typed frontmatter relations; decision: a decision note\'s supersedes or contradicts ' +
      'relation, or a decision whose subject names the note; evidence: a link that cites a block ([[Note#^block]]); ' +
      'temporal: notes asserting about the same entity; semantic: lexical similarity of titles (method "lexical"); ' +
      'derived: two explicit hops through a note in between',
  );

const Timestamp = z.iso.datetime();
const Lines = z.array(z.number().int().positive()).length(2).describe('First and last line, 1-based, inclusive');

/** Where a relation is written. */
export const RelationEvidenceSchema = z.object({
  path: z.string().describe('The note where it is written'),
  lines: Lines.nullable().describe('Where in that note; null for a title compared'),
  text: z
    .string()
    .describe('What is written: the link as written, `key: [[target]]` of a frontmatter relation, `subject: ...` of a decision, an entity\'s property, or the title compared'),
  recordId: z.string().nullable().describe('The knowledge record that holds it (a relation, decision or assertion)'),
  blockId: z.string().nullable().describe('The block a link cites (#^id), without ^'),
  quote: z.string().optional().describe('get_relationship_explanation: those lines of the note as it is now (at most 500 characters)'),
});
/** See RelationEvidenceSchema. */
export type RelationEvidence = z.infer<typeof RelationEvidenceSchema>;

const NoteOf = { path: z.string(), title: z.string() };

/** One typed relationship of a note with another. */
export const RelatedNoteSchema = z.object({
  type: RelationTypeSchema,
  ...NoteOf,
  direction: z
    .enum(['outgoing', 'incoming', 'mutual'])
    .describe('outgoing: written in the note asked about; incoming: written in the related note; mutual: a shared property (temporal, semantic)'),
  relation: z
    .string()
    .nullable()
    .describe('explicit: link, embed or the frontmatter key (depends_on, ...); decision: supersedes, contradicts or subject; evidence: cites_block; derived: the second hop\'s; else null'),
  method: z.literal('lexical').optional().describe('semantic only: lexical similarity of titles, not meaning (no embedding model is configured)'),
  score: z.number().min(0).max(1).optional().describe('semantic only: trigram similarity of the titles, 0 to 1'),
  sharedTerms: z.array(z.string()).optional().describe('semantic only: title words both notes share'),
  entities: z.array(z.object({ entityType: z.string(), entityId: z.string() })).optional().describe('temporal only: the entities both notes assert about'),
  via: z.object(NoteOf).optional().describe('derived only: the note in between (this note -> via -> related note)'),
  evidence: z.array(RelationEvidenceSchema).describe('Where the relation is written (at most 5; evidenceCount says how many there are)'),
  evidenceCount: z.number().int(),
});
/** See RelatedNoteSchema. */
export type RelatedNote = z.infer<typeof RelatedNoteSchema>;

/** Relations counted per type. */
const Count = z.number().int();
export const TypeCountsSchema = z.object({ explicit: Count, decision: Count, evidence: Count, temporal: Count, semantic: Count, derived: Count });

/** A page of find_related. */
export const RelatedPageSchema = z.object({
  ...NoteOf,
  related: z.array(RelatedNoteSchema),
  withheld: z.number().int().describe('Relations to notes outside your scope or missing now: counted, never shown'),
  withheldByType: TypeCountsSchema,
  limitsReached: z.array(RelationTypeSchema).describe('Types whose candidates were cut at their bound: more relations of these types may exist'),
  truncated: z.boolean().describe('True when more relations exist (after nextCursor, or past a bound): a truncated answer is not proof of absence'),
  nextCursor: z.string().nullable(),
});
/** See RelatedPageSchema. */
export type RelatedPage = z.infer<typeof RelatedPageSchema>;

/** How current a note and its compiled knowledge are. */
export const NoteFreshnessSchema = z.object({
  ...NoteOf,
  revision: z.string().describe('The note\'s current revision'),
  storedAt: Timestamp.nullable().describe('When this replica stored that revision (see storedAtSource); null when unknown'),
  storedAtSource: z
    .enum(['observation_receipt', 'compiled_at'])
    .nullable()
    .describe('observation_receipt: the first sighting of that revision by this replica; compiled_at: no receipt exists (content from before receipts), so the time its knowledge was compiled, which is later than the store'),
  compiledRevision: z.string().nullable().describe('The revision its knowledge records were compiled from; null when not compiled yet'),
  knowledgeCurrent: z.boolean().describe('True when its knowledge is compiled from its current revision'),
});
/** See NoteFreshnessSchema. */
export type NoteFreshness = z.infer<typeof NoteFreshnessSchema>;

/** get_relationship_explanation. */
export const RelationshipExplanationSchema = z.object({
  type: RelationTypeSchema,
  from: NoteFreshnessSchema,
  to: NoteFreshnessSchema,
  holds: z.boolean().describe('Whether the relation of this type holds now between the two notes'),
  relations: z.array(RelatedNoteSchema).describe('Each relation of this type between them, seen from `from`, with its evidence quoted'),
  lexical: z
    .object({ method: z.literal('lexical'), score: z.number(), threshold: z.number(), sharedTerms: z.array(z.string()) })
    .nullable()
    .describe('semantic only: the lexical comparison of the titles, whether or not it holds'),
  directlyLinked: z.boolean().nullable().describe('derived only: the two notes are directly linked, so no derived relation holds'),
  withheld: z.number().int().describe('derived only: paths through notes outside your scope or missing, not shown'),
  truncated: z.boolean().describe('True when a bound cut the search: a relation not shown is not proof of absence'),
});
/** See RelationshipExplanationSchema. */
export type RelationshipExplanation = z.infer<typeof RelationshipExplanationSchema>;

/** A decision on one side of a tension, with what a person decided. */
export const SideDecisionSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['confirmed', 'superseded', 'rejected', 'candidate']).describe('What a person decided; candidate: nobody reviewed it as it is now'),
  statusInNote: z.enum(['proposed', 'accepted', 'rejected', 'superseded', 'deprecated']),
  review: z.object({ verdict: z.enum(['confirmed', 'rejected', 'superseded']), reviewedAt: Timestamp }).nullable(),
});
/** See SideDecisionSchema. */
export type SideDecision = z.infer<typeof SideDecisionSchema>;

/** One side of a tension. */
export const TensionSideSchema = z.object({
  withheld: z.boolean().describe('True when this side is outside your scope or missing now: nothing more is said of it'),
  path: z.string().nullable(),
  title: z.string().nullable(),
  targetAsWritten: z.string().nullable().describe('Target side: the target as the relation writes it (null when withheld)'),
  decisions: z.array(SideDecisionSchema).describe('The decisions this note holds (at most 5)'),
});
/** See TensionSideSchema. */
export type TensionSide = z.infer<typeof TensionSideSchema>;

/** A recorded tension: a `contradicts` relation, with both sides and its whole history. */
export const TensionSchema = z.object({
  id: z.string().describe('The id of the contradicts relation record'),
  state: z.enum(['open', 'resolved']),
  resolution: z
    .array(
      z.object({
        reason: z.enum(['relation_removed', 'side_superseded', 'side_rejected']),
        at: Timestamp.nullable(),
        side: z.enum(['holder', 'target']).nullable(),
      }),
    )
    .describe('Why it is resolved (empty while open)'),
  holder: TensionSideSchema.describe('The note that writes the contradicts relation'),
  target: TensionSideSchema.describe('The note it contradicts, resolved now'),
  history: z.object({
    versions: z
      .array(
        z.object({
          revision: z.string().describe('The holder\'s revision this version was compiled from'),
          knownFrom: Timestamp.nullable().describe('When this replica recorded it; null for content stored before receipts'),
          retiredAt: Timestamp.nullable().describe('When this replica recorded its end; null while current'),
          retiredRevision: z.string().nullable().describe('The holder\'s revision that ended it (null: the note was deleted, or current)'),
        }),
      )
      .describe('Every version of the relation record, oldest first'),
    events: z
      .array(
        z.object({
          type: z.string(),
          beforeRevision: z.string().nullable(),
          afterRevision: z.string().nullable(),
          recordedAt: Timestamp,
        }),
      )
      .describe('The knowledge change events of the relation record, oldest first'),
    truncated: z.boolean().describe('True when only the latest 20 versions or events are shown'),
  }),
});
/** See TensionSchema. */
export type Tension = z.infer<typeof TensionSchema>;
