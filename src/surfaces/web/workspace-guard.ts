import type { Context, Handler } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { TokensService } from '../../domains/tokens/index.ts';
import type { HttpEnv } from '../http/context.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import { listMappings } from '../operations/vault-operations.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, type SafeHtml, type SignedIn } from './layout.ts';
import type { CurrentSession } from './session.ts';
import { sessionPrincipal, workspaceCaller, type WorkspaceCall } from './workspace-calls.ts';
import { scopesUrl } from './knowledge-urls.ts';
import { eventsUrl, proposalsUrl, trashUrl, vaultUrl } from './workspace-urls.ts';
import { filesUrl } from './file-urls.ts';

/** What the workspace pages need. */
export interface WorkspaceDependencies extends AccountPageDependencies {
  tokens: Pick<TokensService, 'principalFor'>;
  pipeline: Pipeline;
}

/** A workspace request: the session, the page header's view of it, and calls of operations as its person. */
export interface WorkspaceRequest {
  current: CurrentSession;
  signedIn: SignedIn;
  call: WorkspaceCall;
  /** The person as domains see them (a web session): for the pages that call a domain service directly. */
  actor: Actor;
}

async function workspaceRequest(deps: WorkspaceDependencies, current: CurrentSession): Promise<WorkspaceRequest> {
  const principal = await sessionPrincipal(deps.tokens, current.session);
  return { current, signedIn: signedInAs(current), call: workspaceCaller(deps.pipeline, principal), actor: principal.actor };
}

/** A workspace page: signed in, or off to sign-in and back; errors become pages (guards.ts). */
export function workspacePage(deps: WorkspaceDependencies, handler: (c: Context<HttpEnv>, request: WorkspaceRequest) => Promise<Response>): Handler<HttpEnv> {
  return accountPage(deps, async (c, current) => handler(c, await workspaceRequest(deps, current)));
}

/** A workspace form post: with the session's CSRF token and no foreign Origin (guards.ts), else nothing runs. */
export function workspaceForm(
  deps: WorkspaceDependencies,
  backTo: string,
  handler: (c: Context<HttpEnv>, request: WorkspaceRequest, form: URLSearchParams) => Promise<Response>,
): Handler<HttpEnv> {
  return accountForm(deps, backTo, async (c, current, form) => handler(c, await workspaceRequest(deps, current), form));
}

/** A vault as the workspace names it. */
export interface VaultView {
  mappingId: string;
  name: string;
  provider: string;
  readOnly: boolean;
  writeAccess: boolean;
  deviceEncrypted: boolean;
}

/**
 * The vault of a page, among those the person may see (list_vaults, from server records). Any other id, a
 * well-formed one of someone else's vault included, is `not_found`: unknown and forbidden look the same.
 */
export async function vaultOf(call: WorkspaceCall, mappingId: string): Promise<VaultView> {
  const { vaults } = await call<{ vaults: VaultView[] }>(listMappings, {});
  const vault = vaults.find((v) => v.mappingId === mappingId);
  if (!vault) throw new KgateError('not_found', 'No such vault.');
  return vault;
}

/** The navigation between a vault's views, the current one marked for assistive technology. */
export function vaultNav(mappingId: string, current: 'notes' | 'files' | 'events' | 'trash' | 'knowledge' | 'proposals'): SafeHtml {
  const item = (key: typeof current, href: string, label: string) =>
    html`<li><a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav aria-label="Vault" class="tabs"><ul>
    ${item('notes', vaultUrl(mappingId), 'Notes')}
    ${item('files', filesUrl(mappingId), 'Files')}
    ${item('events', eventsUrl(mappingId), 'Events')}
    ${item('trash', trashUrl(mappingId), 'Trash')}
    ${item('knowledge', scopesUrl(mappingId), 'Knowledge')}
    ${item('proposals', proposalsUrl(mappingId), 'Proposals')}
  </ul></nav>`;
}
