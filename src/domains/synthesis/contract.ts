import { z } from 'zod';

// The shapes of a scope's living brief (docs/synthesis.md). Each section is built deterministically from knowledge
// records; its review state says whether a person accepted this very build and whether its evidence still holds.

/** The sections of a brief, in the order they are shown. */
export const SECTION_KINDS = ['confirmed-decisions', 'candidate-decisions', 'open-questions', 'open-commitments', 'tensions', 'current-facts'] as const;
/** One of SECTION_KINDS. */
export type SectionKind = (typeof SECTION_KINDS)[number];

/** Most items one section holds; more is `truncated`. */
export const MAX_SECTION_ITEMS = 50;

/** The headings of the sections. */
export const SECTION_TITLES: Readonly<Record<SectionKind, string>> = {
  'confirmed-decisions': 'Confirmed decisions',
  'candidate-decisions': 'Candidate decisions awaiting review',
  'open-questions': 'Open questions',
  'open-commitments': 'Open commitments',
  tensions: 'Tensions',
  'current-facts': 'Current facts',
};

/** Where an item comes from: the note, the revision the item cites, and the lines (null when the record gives none). */
export const SectionEvidenceSchema = z.object({
  path: z.string(),
  revision: z.string().describe('The note revision this build cites'),
  lines: z.array(z.number().int().positive()).length(2).nullable().describe('First and last line, 1-based; null when the record gives none (a tension cites its note)'),
});
/** See SectionEvidenceSchema. */
export type SectionEvidence = z.infer<typeof SectionEvidenceSchema>;

/** One line of a section: the record it says something of, what it says, and its evidence. */
export const SectionItemSchema = z.object({
  recordId: z.string(),
  kind: z.enum(['decision', 'question', 'commitment', 'tension', 'assertion']),
  text: z.string().describe('The line, as the section text gives it (without evidence)'),
  evidence: SectionEvidenceSchema,
});
/** See SectionItemSchema. */
export type SectionItem = z.infer<typeof SectionItemSchema>;

/** What a build made: the text and the items, pure functions of the records read. */
export interface SectionBody {
  title: string;
  text: string;
  items: SectionItem[];
  truncated: boolean;
}

/** What changed between the records a section was built from and the records it would hold now. */
export const StalenessSchema = z.object({
  added: z.array(z.string()).describe('Records the section would hold now that this build does not (at most 50)'),
  removed: z.array(z.string()).describe('Records this build holds that the section would not hold now (at most 50)'),
  changed: z.array(z.string()).describe('Records in both whose cited revision or line changed (at most 50)'),
});
/** See StalenessSchema. */
export type Staleness = z.infer<typeof StalenessSchema>;

/**
 * A section's review state: `unbuilt` (nobody built it yet), `draft` (built, not accepted by a person), `accepted` (a
 * person accepted this build and its evidence still holds), `stale` (its evidence changed since it was built, whatever
 * its acceptance: rebuild it).
 */
export const ReviewStateSchema = z.enum(['unbuilt', 'draft', 'accepted', 'stale']);
/** See ReviewStateSchema. */
export type ReviewState = z.infer<typeof ReviewStateSchema>;

/** A section of a scope's brief as a read gives it. */
export interface Section {
  section: SectionKind;
  title: string;
  state: ReviewState;
  /** True only for an accepted section whose evidence still holds: the one state that is trusted shared memory. */
  trusted: boolean;
  /** The build shown, null while unbuilt. */
  build: null | {
    number: number;
    fingerprint: string;
    method: 'deterministic';
    builtAt: Date;
    builtBy: string | null;
    /** When a person accepted this build, and who; null for a draft. */
    accepted: { at: Date; by: string | null } | null;
    text: string;
    items: SectionItem[];
    truncated: boolean;
  };
  /** The fingerprint of the records as they are now (what a rebuild would store). */
  currentFingerprint: string;
  /** For a stale section: what changed; null otherwise. */
  staleness: Staleness | null;
}
