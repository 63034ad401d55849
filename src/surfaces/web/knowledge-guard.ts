import type { KnowledgeService } from '../../domains/knowledge/index.ts';
import type { AuthorizedScope, ScopesService } from '../../domains/scopes/index.ts';
import type { MembershipService } from '../../domains/workspaces/index.ts';
import { html, type SafeHtml } from './layout.ts';
import { knowledgeUrl, scopesUrl, type KnowledgeView } from './knowledge-urls.ts';
import { vaultNav, vaultOf, type VaultView, type WorkspaceDependencies, type WorkspaceRequest } from './workspace-guard.ts';

/** What the knowledge and scope pages need beyond the workspace's: the two domains they show. */
export interface KnowledgePageDependencies extends WorkspaceDependencies {
  scopes: ScopesService;
  knowledge: KnowledgeService;
  /** Who reviewed a decision, by the e-mail of each member. */
  membership: Pick<MembershipService, 'listMembers'>;
}

/** A request of a scope's pages: the vault as the workspace names it, and the scope authorized for this person now. */
export interface ScopeRequest {
  vault: VaultView;
  authorized: AuthorizedScope;
}

/**
 * The vault and scope a page names, authorized from server records on every request: the vault among those the
 * person may see, the scope among those of that mapping whose audience admits their role (scopes.authorize). Any
 * other id, a guessed one or another account's included, is `not_found`, the same answer as for one that does not
 * exist.
 */
export async function scopeOf(deps: KnowledgePageDependencies, request: WorkspaceRequest, mappingId: string, scopeId: string): Promise<ScopeRequest> {
  const vault = await vaultOf(request.call, mappingId);
  const authorized = await deps.scopes.authorize(request.actor, vault.mappingId, scopeId);
  return { vault, authorized };
}

const VIEWS: ReadonlyArray<[KnowledgeView, string]> = [
  ['decisions', 'Decisions'],
  ['commitments', 'Commitments'],
  ['questions', 'Open questions'],
  ['entities', 'Entities over time'],
  ['views', 'Saved views'],
  ['findings', 'Findings'],
  ['synthesis', 'Brief'],
  ['traces', 'Work sessions'],
];

/** The header of a scope's pages: the vault's navigation, the way back to its scopes, and the scope's views. */
export function scopeHeader(scope: ScopeRequest, current: KnowledgeView | undefined): SafeHtml {
  const { mappingId } = scope.vault;
  const { scope: s } = scope.authorized;
  const where = [...s.pathPrefixes.map((p) => `folder ${p}`), ...s.tags.map((t) => `#${t}`)].join(', ');
  return html`${vaultNav(mappingId, 'knowledge')}
    <nav aria-label="Scope" class="crumbs"><ol><li><a href="${scopesUrl(mappingId)}">Scopes of ${scope.vault.name}</a></li><li aria-current="page">${s.name}</li></ol></nav>
    <p class="muted">This scope reads ${where === '' ? 'the whole vault' : where}.</p>
    <nav aria-label="Knowledge" class="tabs"><ul>${VIEWS.map(
      ([view, label]) => html`<li><a href="${knowledgeUrl(mappingId, s.id, view)}"${view === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul></nav>`;
}
