import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The newest MCP revision we speak (spec 9.1). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
/** Every revision we negotiate, newest first (spec 9.1). */
export const PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
/** What a request without MCP-Protocol-Version is taken to speak (transport spec 2025-06-18, "Protocol Version Header"). */
export const DEFAULT_HEADER_VERSION = '2025-03-26';
/**
 * The stateless revision (SEP-2575): no initialize, every request carries its protocol version and the client's
 * capabilities in `params._meta`, and the MCP-Protocol-Version header must repeat that version. It is served beside
 * the revisions above (stateless.ts), not negotiated by initialize.
 */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';
/** Every revision we speak, newest first: what server/discover and UnsupportedProtocolVersionError list. */
export const SUPPORTED_VERSIONS: readonly string[] = [STATELESS_PROTOCOL_VERSION, ...PROTOCOL_VERSIONS];
/** The only revision whose transport allows JSON-RPC batches. */
export const BATCH_VERSION = '2025-03-26';

// Our list and the SDK's must agree; a new SDK revision is adopted deliberately, not silently.
for (const version of PROTOCOL_VERSIONS) {
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) throw new Error(`MCP SDK does not know protocol ${version}`);
}

/** The revision answered to an `initialize` asking for `requested`: the same when supported, else our latest. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** Server-wide instructions returned by initialize (spec 4.1). */
export const SERVER_INSTRUCTIONS = [
  'kgate gives governed access to Markdown note vaults.',
  'Start with list_vaults to discover the mappings you may use, then pass a mappingId to the vault tools; never guess one.',
  'Find notes with search_notes (its snippets often answer without reading whole notes) and follow links with query_graph_relations.',
  'Reads are bounded: results say truncated: true when more exists; fetch more with a cursor or a narrower request instead of assuming nothing else exists.',
  'Writes are previews first: call preview_note_writes or preview_note_deletions, show the human the diff and wait for approval,',
  'then call the matching apply tool with exactly the approved notes, a new idempotencyKey, and each existing note\'s current hash (beforeRevision of the preview).',
  'A stale hash is rejected, never overwritten: read the note again and preview again.',
].join(' ');

/** What initialize tells agents at the product-only endpoint (spec 4.4), which serves only the six published-intelligence tools. */
export const INTELLIGENCE_INSTRUCTIONS = [
  'This endpoint serves only published intelligence: curated, citable packs of a product you are entitled to, with no access to any vault.',
  'Every tool takes the product slug and a required asOf cutoff (YYYY-MM-DD): nothing published, reported or accepted after it is answered.',
  'Start with list_published_intelligence_sources or search_published_intelligence, cite the evidence (source, version, citation URL) you use,',
  'and use get_published_intelligence_changes with from and asOf to see what was added, superseded or retracted between two dates.',
].join(' ');
