/**
 * The addresses of the knowledge pages (docs/workspace.md, "Knowledge pages"): a vault's context scopes, and what
 * one scope holds. Every address names the mapping and the scope; each request authorizes both again.
 */
import { noteUrl } from './workspace-urls.ts';

/** The views of a scope's knowledge. */
export type KnowledgeView = 'decisions' | 'commitments' | 'questions' | 'entities' | 'views' | 'findings' | 'synthesis' | 'traces';

const vaultBase = (mappingId: string) => `/workspace/vaults/${encodeURIComponent(mappingId)}`;

/** A query string from the values that are set ('' without any). */
function queryOf(query: Readonly<Record<string, string | undefined>>): string {
  const set = Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
  return set.length === 0 ? '' : `?${new URLSearchParams(set).toString()}`;
}

/** A vault's context scopes: the list, and where new ones are made. */
export function scopesUrl(mappingId: string): string {
  return `${vaultBase(mappingId)}/scopes`;
}

/** One scope's definition, to change or remove it. */
export function scopeEditUrl(mappingId: string, scopeId: string): string {
  return `${scopesUrl(mappingId)}/${encodeURIComponent(scopeId)}/edit`;
}

/** Where a scope's delete form posts. */
export function scopeDeleteUrl(mappingId: string, scopeId: string): string {
  return `${scopesUrl(mappingId)}/${encodeURIComponent(scopeId)}/delete`;
}

/** A view of one scope's knowledge, with its query (filters, the cursor of a further page). */
export function knowledgeUrl(mappingId: string, scopeId: string, view: KnowledgeView, query: Readonly<Record<string, string | undefined>> = {}): string {
  return `${scopesUrl(mappingId)}/${encodeURIComponent(scopeId)}/${view}${queryOf(query)}`;
}

/** One decision of a scope: its evidence, its reviews, and the form to review it. */
export function decisionUrl(mappingId: string, scopeId: string, recordId: string): string {
  return `${knowledgeUrl(mappingId, scopeId, 'decisions')}/${encodeURIComponent(recordId)}`;
}

/** Where a record's evidence starts in the note view: the line anchor the note page gives each block (note-render.ts). */
export function evidenceUrl(mappingId: string, evidence: { path: string; lines: readonly number[] }): string {
  return `${noteUrl(mappingId, evidence.path)}#L${evidence.lines[0] ?? 1}`;
}
