import { Hono, type Context } from 'hono';
import { isKgateError } from '../../kernel/errors.ts';
import { SECTION_KINDS, type Section, type SectionKind, type SynthesisService } from '../../domains/synthesis/index.ts';
import { roleAllows } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { scopeHeader, scopeOf, type KnowledgePageDependencies, type ScopeRequest } from './knowledge-guard.ts';
import { evidenceUrl, knowledgeUrl } from './knowledge-urls.ts';
import { hiddenInput, html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import { formBodyLimit } from './session.ts';
import { workspaceForm, workspacePage, type WorkspaceRequest } from './workspace-guard.ts';

/** What the brief's page needs beyond the knowledge pages'. */
export interface SynthesisPageDependencies extends KnowledgePageDependencies {
  synthesis: SynthesisService;
}

const PATH = '/workspace/vaults/:mappingId/scopes/:scopeId/synthesis';

const STATE_WORDS: Readonly<Record<Section['state'], string>> = {
  unbuilt: 'not built yet',
  draft: 'draft — not accepted by a person',
  accepted: 'accepted',
  stale: 'stale — its evidence changed',
};

function stateBadge(section: Section): SafeHtml {
  const cls = section.state === 'accepted' ? 'confirmed' : section.state === 'unbuilt' ? '' : 'candidate';
  return html`<strong class="badge ${cls}">${STATE_WORDS[section.state]}</strong>`;
}

const actionUrl = (scope: ScopeRequest, action: 'rebuild' | 'accept') => `${knowledgeUrl(scope.vault.mappingId, scope.authorized.scope.id, 'synthesis')}/${action}`;

function rebuildForm(scope: ScopeRequest, csrf: string, section: SectionKind | 'all', label: string): SafeHtml {
  return html`<form method="post" action="${actionUrl(scope, 'rebuild')}" class="inline">${hiddenInput('csrf', csrf)}${hiddenInput('section', section)}<button type="submit">${label}</button></form>`;
}

function sectionBlock(scope: ScopeRequest, section: Section, csrf: string, canWrite: boolean): SafeHtml {
  const { mappingId } = scope.vault;
  const build = section.build;
  const heading = `s-${section.section}`;
  const items = !build
    ? html`<p class="muted">Nobody has built this section yet.</p>`
    : build.items.length === 0
      ? html`<p>None in this scope.</p>`
      : html`<ul>${build.items.map(
          (item) => html`<li>${item.text} — <a href="${evidenceUrl(mappingId, { path: item.evidence.path, lines: item.evidence.lines ?? [1, 1] })}">${item.evidence.path}</a>
            <span class="muted">${item.evidence.lines ? (item.evidence.lines[0] === item.evidence.lines[1] ? `line ${item.evidence.lines[0]}` : `lines ${item.evidence.lines[0]}–${item.evidence.lines[1]}`) : 'frontmatter'}</span></li>`,
        )}</ul>`;
  const staleness = section.staleness
    ? html`<p class="warning">The records changed since this build: ${section.staleness.added.length} added, ${section.staleness.removed.length} removed, ${section.staleness.changed.length} changed. What it says may no longer be true; rebuild it to see the records as they are.</p>`
    : '';
  const about = build
    ? html`<p class="muted">Build ${build.number}, made ${showDate(build.builtAt)} from the records deterministically${build.accepted ? html`; accepted by a person ${showDate(build.accepted.at)}` : ''}.</p>`
    : '';
  const forms = !canWrite
    ? ''
    : html`<div class="actions">
        ${section.state === 'draft' && build
          ? html`<form method="post" action="${actionUrl(scope, 'accept')}" class="inline">${hiddenInput('csrf', csrf)}${hiddenInput('section', section.section)}${hiddenInput('fingerprint', build.fingerprint)}<button type="submit" aria-label="Accept “${section.title}”">Accept</button></form>`
          : ''}
        ${section.state === 'stale' || section.state === 'unbuilt' ? rebuildForm(scope, csrf, section.section, `Rebuild “${section.title}”`) : ''}
      </div>`;
  return html`<section aria-labelledby="${heading}" id="${section.section}">
    <h2 id="${heading}">${section.title} ${stateBadge(section)}</h2>
    ${staleness}${items}${build?.truncated ? html`<p class="muted">More exist: this section holds the first ${build.items.length}.</p>` : ''}${about}${forms}
  </section>`;
}

async function briefBody(deps: SynthesisPageDependencies, request: WorkspaceRequest, scope: ScopeRequest, error?: string): Promise<SafeHtml> {
  const sections = await deps.synthesis.read(scope.authorized);
  const canWrite = roleAllows(scope.authorized.role, 'vault.write');
  const csrf = request.current.csrf;
  return html`${scopeHeader(scope, 'synthesis')}
    ${error ? html`<p class="error" role="alert">${error} Nothing was changed.</p>` : ''}
    <p>The brief is built deterministically from this scope's knowledge records; no model writes it. A section is what
      the team agreed only once a person accepts it, and only while its evidence holds: a draft is unreviewed, and a
      stale section's evidence changed since it was built.</p>
    ${canWrite ? html`<p>${rebuildForm(scope, csrf, 'all', 'Rebuild every section')}</p>` : html`<p class="muted">Your role in this workspace does not allow building or accepting the brief.</p>`}
    ${sections.map((s) => sectionBlock(scope, s, csrf, canWrite))}`;
}

const sectionOf = (form: URLSearchParams): SectionKind | undefined => SECTION_KINDS.find((k) => k === form.get('section'));

/**
 * A scope's living brief (`/workspace/vaults/{mappingId}/scopes/{scopeId}/synthesis`): every section with its items,
 * their evidence linked to the lines of the note, its review state; Rebuild and Accept are CSRF-checked form posts of
 * a signed-in person (docs/synthesis.md).
 */
export function synthesisPages(deps: SynthesisPageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    PATH,
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      return sendPage(c, { title: `Brief: ${scope.authorized.scope.name}`, signedIn: request.signedIn, body: await briefBody(deps, request, scope) });
    }),
  );

  app.post(
    `${PATH}/rebuild`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const section = sectionOf(form);
      if (form.get('section') !== 'all' && section === undefined) return refused(c, deps, request, scope, 'Choose a section to rebuild.', 400);
      await deps.synthesis.rebuild(request.actor, scope.authorized, section === undefined ? undefined : [section]);
      return sendRedirect(c, `${knowledgeUrl(scope.vault.mappingId, scope.authorized.scope.id, 'synthesis')}${section ? `#${section}` : ''}`);
    }),
  );

  app.post(
    `${PATH}/accept`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const section = sectionOf(form);
      if (section === undefined) return refused(c, deps, request, scope, 'Choose a section to accept.', 400);
      try {
        await deps.synthesis.accept(request.actor, scope.authorized, section, form.get('fingerprint') ?? '');
      } catch (error) {
        // The section changed under the person (rebuilt, or stale now): shown again as it is, with why.
        if (!isKgateError(error) || error.code !== 'conflict') throw error;
        return refused(c, deps, request, scope, error.message, 409);
      }
      return sendRedirect(c, `${knowledgeUrl(scope.vault.mappingId, scope.authorized.scope.id, 'synthesis')}#${section}`);
    }),
  );

  return app;
}

async function refused(c: Context<HttpEnv>, deps: SynthesisPageDependencies, request: WorkspaceRequest, scope: ScopeRequest, message: string, status: 400 | 409): Promise<Response> {
  return sendPage(c, { title: `Brief: ${scope.authorized.scope.name}`, signedIn: request.signedIn, body: await briefBody(deps, request, scope, message) }, status);
}
