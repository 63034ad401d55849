/**
 * A framework slice as standards bodies publish it: CASE 1.1 JSON (1EdTech Competencies and Academic Standards
 * Exchange, the CFPackage of `getCFPackage`): one CFDocument, its CFItems and, optionally, CFAssociations. Only the
 * fields the crosswalk reads are checked here; CASE's other fields and vendor extensions are accepted and not read
 * (they are dropped on parsing, so they cannot reach an answer). Bounds are ours (docs/education.md).
 */
import { z } from 'zod';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';

/** Most CFItems in one slice. */
export const MAX_FRAMEWORK_ITEMS = 2000;
/** Most CFAssociations in one slice (hierarchy and declared matches). */
export const MAX_FRAMEWORK_ASSOCIATIONS = 10_000;
/** Longest fullStatement accepted, in characters. */
export const MAX_STATEMENT_CHARS = 5000;

const IdentifierSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !hasControlCharacters(value), 'must not contain control characters')
  .describe('CASE identifier (a UUID in CASE; any stable string of up to 200 characters without control characters here)');
const ShortTextSchema = (max: number) => z.string().max(max);
const LabelListSchema = z.array(z.string().max(200)).max(30);

/** A CASE link (LinkGenURI / LinkURI): the identifier is what the crosswalk reads. */
export const CaseLinkSchema = z.object({
  identifier: IdentifierSchema,
  uri: ShortTextSchema(2000).optional(),
  title: ShortTextSchema(1000).optional(),
});

/** CFDocument (CFPckgDocument): the framework's identity. */
export const CaseDocumentSchema = z
  .object({
    identifier: IdentifierSchema,
    uri: ShortTextSchema(2000).optional(),
    creator: ShortTextSchema(1000).optional(),
    title: ShortTextSchema(1000).optional(),
    version: ShortTextSchema(200).optional(),
    adoptionStatus: ShortTextSchema(200).optional(),
    subject: LabelListSchema.optional(),
    language: ShortTextSchema(35).optional(),
  })
  .describe('CASE 1.1 CFDocument; other CASE fields are accepted and not read');

/** CFItem (CFPckgItem): one standard, or a grouping of standards (grade, domain, cluster). */
export const CaseItemSchema = z
  .object({
    identifier: IdentifierSchema,
    fullStatement: z.string().min(1).max(MAX_STATEMENT_CHARS).describe('Compared, never returned'),
    humanCodingScheme: ShortTextSchema(200).optional(),
    CFItemType: ShortTextSchema(200).optional(),
    educationLevel: LabelListSchema.optional(),
    subject: LabelListSchema.optional(),
    language: ShortTextSchema(35).optional(),
    uri: ShortTextSchema(2000).optional(),
  })
  .describe('CASE 1.1 CFItem; other CASE fields are accepted and not read');

/** CFAssociation (CFPckgAssociation): `isChildOf` gives the hierarchy; match types are declared correspondences. */
export const CaseAssociationSchema = z
  .object({
    identifier: IdentifierSchema.optional(),
    associationType: z.string().min(1).max(100),
    originNodeURI: CaseLinkSchema,
    destinationNodeURI: CaseLinkSchema,
  })
  .describe('CASE 1.1 CFAssociation; other CASE fields are accepted and not read');

/** One framework slice: a CASE 1.1 CFPackage, bounded. */
export const CasePackageSchema = z
  .object({
    CFDocument: CaseDocumentSchema,
    CFItems: z.array(CaseItemSchema).max(MAX_FRAMEWORK_ITEMS).describe(`At most ${MAX_FRAMEWORK_ITEMS} items`),
    CFAssociations: z.array(CaseAssociationSchema).max(MAX_FRAMEWORK_ASSOCIATIONS).optional().describe(`At most ${MAX_FRAMEWORK_ASSOCIATIONS} associations`),
  })
  .describe('A framework slice as CASE 1.1 CFPackage JSON (CFDefinitions, CFRubrics and extensions are accepted and not read)');

/** See CasePackageSchema. */
export type CasePackage = z.infer<typeof CasePackageSchema>;
/** See CaseItemSchema. */
export type CaseItem = z.infer<typeof CaseItemSchema>;
/** See CaseAssociationSchema. */
export type CaseAssociation = z.infer<typeof CaseAssociationSchema>;
