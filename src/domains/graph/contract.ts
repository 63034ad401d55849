import { z } from 'zod';

/** Items per list when the caller does not say. */
export const DEFAULT_RELATIONS_LIMIT = 100;
/** Most items per list. */
export const MAX_RELATIONS_LIMIT = 1000;
/**
 * Most candidate links read while looking for a note's incoming links. Candidates are the links that name the
 * note's file name; where many notes share that name, most of them resolve elsewhere. Past this many the answer
 * says `truncated` rather than read on (spec 8: the content used for graph analysis is bounded).
 */
export const MAX_INCOMING_CANDIDATES = 10_000;

/** Where a link sits and what it says besides its target; `line` is 1-based, in the note that holds the link. */
const LinkFields = {
  kind: z.enum(['wikilink', 'markdown']).describe('[[WikiLink]] or internal Markdown link [text](path)'),
  heading: z.string().nullable().describe('The heading it points at (#Heading), if any'),
  blockId: z.string().nullable().describe('The block it points at (#^block-id), without ^'),
  alias: z.string().nullable().describe('The alias ([[target|alias]]) or Markdown link text'),
  line: z.number().int().positive().describe('1-based line of the link in the note that holds it'),
};

/** A link of the note to another existing note (or to itself, as in [[#Heading]]). */
export const OutgoingLinkSchema = z.object({
  path: z.string().describe('The note it resolves to'),
  target: z.string().describe('The target as written'),
  ...LinkFields,
});
/** A link of another note that resolves to this note. */
export const IncomingLinkSchema = z.object({
  sourcePath: z.string().describe('The note that holds the link'),
  embed: z.boolean().describe('True for an embed (![[...]]) of this note'),
  ...LinkFields,
});
/** The stored canvas or attachment an embed resolves to (docs/vaults.md, "Canvases and attachments"). */
export const EmbeddedFileSchema = z.object({
  path: z.string().describe('The file, as stored'),
  kind: z.enum(['canvas', 'attachment']).describe('canvas: a JSON Canvas file; attachment: an image, a PDF, audio or any other file'),
  mediaType: z.string().describe('Its media type, decided from the extension when it was stored'),
  size: z.number().int().nonnegative().describe('Its size in bytes'),
});
/** An embed (`![[...]]`, `![](...)`) of the note, resolved or not. */
export const EmbedSchema = z.object({
  target: z.string().describe('The target as written'),
  resolved: z.string().nullable().describe('The note it resolves to; null when it names no note (a stored file, see file, or nothing)'),
  file: EmbeddedFileSchema.nullable().describe(
    'The canvas or attachment it resolves to, by the same rules as notes; a file named exactly by the target wins over a note named ' +
      'by the target plus .md, as in Obsidian. null when it names no stored file (then resolved may name a note)',
  ),
  ...LinkFields,
});
/** A link (not an embed) of the note to a stored canvas or attachment (`[[spec.pdf]]`, `[plan](Papers/plan.pdf)`). */
export const FileLinkSchema = z.object({
  target: z.string().describe('The target as written'),
  file: EmbeddedFileSchema.describe('The canvas or attachment it resolves to, by the same rules as embeds'),
  ...LinkFields,
});
/** A link of the note whose target matches no note of the vault. */
export const UnresolvedLinkSchema = z.object({ target: z.string().describe('The target as written'), ...LinkFields });

/** The relations of one note. */
export const GraphRelationsSchema = z.object({
  path: z.string().describe('The note, as stored'),
  outgoing: z.array(OutgoingLinkSchema).describe('Its links to existing notes, embeds apart, in note order'),
  incoming: z.array(IncomingLinkSchema).describe('Links of other notes that resolve to it, by source path'),
  embeds: z.array(EmbedSchema).describe('Its embeds, in note order'),
  fileLinks: z.array(FileLinkSchema).describe('Its links (embeds apart) to stored canvases and attachments, in note order'),
  unresolved: z.array(UnresolvedLinkSchema).describe('Its links to no note and no stored file, in note order'),
  truncated: z
    .boolean()
    .describe('True when a list was cut at the limit or the search for incoming links stopped early: more relations may exist'),
});
/** See GraphRelationsSchema. */
export type GraphRelations = z.infer<typeof GraphRelationsSchema>;
/** See OutgoingLinkSchema. */
export type OutgoingLink = z.infer<typeof OutgoingLinkSchema>;
/** See FileLinkSchema. */
export type FileLink = z.infer<typeof FileLinkSchema>;
/** See IncomingLinkSchema. */
export type IncomingLink = z.infer<typeof IncomingLinkSchema>;
/** See EmbeddedFileSchema. */
export type EmbeddedFile = z.infer<typeof EmbeddedFileSchema>;
/** See EmbedSchema. */
export type Embed = z.infer<typeof EmbedSchema>;
/** See UnresolvedLinkSchema. */
export type UnresolvedLink = z.infer<typeof UnresolvedLinkSchema>;

/** What to look up. */
export interface RelationsRequest {
  /** Vault-relative note path ending in `.md`. */
  path: string;
  /** Items per list, 1 to MAX_RELATIONS_LIMIT (default DEFAULT_RELATIONS_LIMIT). */
  limit?: number;
}
