import { Hono } from 'hono';
import { MAX_KNOWLEDGE_LIMIT, type TemporalAnswer, type TemporalRecord } from '../../domains/knowledge/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { scopeHeader, scopeOf, type ScopeRequest, type KnowledgePageDependencies } from './knowledge-guard.ts';
import { knowledgeUrl } from './knowledge-urls.ts';
import { CURSOR_PARAM, cursorOf, evidenceLink, knownTime, morePage, noteDate } from './knowledge-view.ts';
import { html, sendPage, showDate, type SafeHtml } from './layout.ts';
import { workspacePage } from './workspace-guard.ts';

/** An entity as its assertions name it. */
interface EntityKey {
  type: string;
  id: string;
  properties: number;
}

/** The entities of a page of current assertions, in their order, each with how many of its properties it holds. */
export function entitiesOf(records: readonly TemporalRecord[]): EntityKey[] {
  const entities: EntityKey[] = [];
  for (const r of records) {
    const last = entities[entities.length - 1];
    if (last && last.type === r.entityType && last.id === r.entityId) last.properties += 1;
    else entities.push({ type: r.entityType, id: r.entityId, properties: 1 });
  }
  return entities;
}

/** The versions of a page of history by property, in the order read (oldest version first within each). */
function byProperty(records: readonly TemporalRecord[]): Array<[string, TemporalRecord[]]> {
  const groups = new Map<string, TemporalRecord[]>();
  for (const r of records) groups.set(r.property, [...(groups.get(r.property) ?? []), r]);
  return [...groups];
}

/** A property's value as a person reads it: text as written, anything else as JSON. */
function valueText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

function versionRow(mappingId: string, r: TemporalRecord): SafeHtml {
  return html`<tr${r.current ? html` class="current"` : ''}>
    <td>${valueText(r.value)}${r.current ? html` <strong class="badge confirmed">current</strong>` : ''}</td>
    <td>${noteDate(r.validFrom)}</td>
    <td>${r.validUntil === null ? html`<span class="muted">open end</span>` : noteDate(r.validUntil)}</td>
    <td>${knownTime(r.knownFrom)}</td>
    <td>${r.knownUntil === null ? html`<span class="muted">still known</span>` : showDate(new Date(r.knownUntil))}</td>
    <td>${evidenceLink(mappingId, r.evidence)}</td>
  </tr>`;
}

/** What a temporal answer held back: versions whose notes are gone now (current authorization). */
function withheld(answer: TemporalAnswer): SafeHtml | string {
  if (!answer.withheldGoneSources) return '';
  return html`<p class="muted">${answer.withheldGoneSources} versions come from notes that are gone now and are not shown.</p>`;
}

function historyBody(scope: ScopeRequest, type: string, id: string, answer: TemporalAnswer, next: string | undefined): SafeHtml {
  const { mappingId } = scope.vault;
  if (answer.items.length === 0) return html`<p>No assertion about <code>${type}</code> <code>${id}</code> in this scope.</p>${withheld(answer)}`;
  return html`<p>Each property's versions, oldest first. <strong>Valid</strong> time is what the note states (an author's claim);
      <strong>known</strong> time is when this replica first stored the change (its observation receipt). A version stored
      before receipts existed has no known time: it is marked <q>known time unavailable</q>, never guessed.</p>
    ${byProperty(answer.items).map(
      ([property, versions], i) => html`<section aria-labelledby="property-${i}">
        <h2 id="property-${i}">${property}</h2>
        <table>
          <thead><tr><th scope="col">Value</th><th scope="col">Valid from</th><th scope="col">Valid until</th><th scope="col">Known from</th><th scope="col">Known until</th><th scope="col">Evidence</th></tr></thead>
          <tbody>${versions.map((r) => versionRow(mappingId, r))}</tbody>
        </table>
      </section>`,
    )}
    ${withheld(answer)}${morePage(answer.truncated, next, 'versions')}`;
}

/**
 * A scope's entities over time (`.../scopes/{scopeId}/entities`): the entities its current assertions name, each a
 * link to its history (`?type=...&id=...`): every version of each property with its valid and known intervals.
 */
export function entityPages(deps: KnowledgePageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/scopes/:scopeId/entities',
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const { mappingId } = scope.vault;
      const s = scope.authorized.scope;
      const type = c.req.query('type') ?? '';
      const id = c.req.query('id') ?? '';
      const cursor = cursorOf(c.req.query(CURSOR_PARAM));
      if (type !== '' && id !== '') {
        const answer = await deps.knowledge.temporal(scope.authorized.slice, { mode: 'history', entityType: type, entityId: id, limit: MAX_KNOWLEDGE_LIMIT, ...cursor });
        const next = answer.nextCursor ? knowledgeUrl(mappingId, s.id, 'entities', { type, id, [CURSOR_PARAM]: answer.nextCursor }) : undefined;
        return sendPage(c, {
          title: `${type} ${id}`,
          signedIn: request.signedIn,
          body: html`${scopeHeader(scope, 'entities')}<p><a href="${knowledgeUrl(mappingId, s.id, 'entities')}">All entities of this scope</a></p>${historyBody(scope, type, id, answer, next)}`,
        });
      }
      const answer = await deps.knowledge.temporal(scope.authorized.slice, { mode: 'current', limit: MAX_KNOWLEDGE_LIMIT, ...cursor });
      const entities = entitiesOf(answer.items);
      const next = answer.nextCursor ? knowledgeUrl(mappingId, s.id, 'entities', { [CURSOR_PARAM]: answer.nextCursor }) : undefined;
      const list =
        entities.length === 0
          ? html`<p>No entity note in this scope. An entity note has a <code>type</code> and an <code>id</code> in its frontmatter.</p>`
          : html`<table>
              <caption class="muted">Entities named by the scope's current assertions</caption>
              <thead><tr><th scope="col">Type</th><th scope="col">Id</th><th scope="col">Properties</th></tr></thead>
              <tbody>${entities.map(
                (e) => html`<tr><td>${e.type}</td><th scope="row"><a href="${knowledgeUrl(mappingId, s.id, 'entities', { type: e.type, id: e.id })}">${e.id}</a></th><td>${e.properties}</td></tr>`,
              )}</tbody></table>`;
      return sendPage(c, {
        title: `Entities: ${s.name}`,
        signedIn: request.signedIn,
        body: html`${scopeHeader(scope, 'entities')}<p>Pick an entity to see how each of its properties changed: when it was valid, and when this replica knew it.</p>
          ${list}${morePage(answer.truncated, next, 'entities')}`,
      });
    }),
  );

  return app;
}
