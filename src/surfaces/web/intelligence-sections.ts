import type { ChangesAnswer, InsightsAnswer, PackListing, SearchAnswer, SourcesAnswer, StateAnswer } from '../../domains/packs/index.ts';
import { html, type SafeHtml } from './layout.ts';
import {
  assertionItem,
  assertionList,
  calendarDay,
  citationLink,
  pageForm,
  problemAlert,
  type PackQuery,
  type PageProblem,
  type SectionOutcome,
} from './intelligence-view.ts';

// The sections of a pack's page at a cutoff, each from one answer of the packs service: sources, accepted assertions
// (paged), insights, changes since a date, search. A section whose answer was refused says why in its place.

/** What every section needs: the cutoff shown, and the address of the page with another query. */
export interface SectionContext {
  asOf: string;
  /** The page with this query added to the cutoff and version shown. */
  urlWith: (query: PackQuery) => string;
}

/** A section: its heading (by id, for the page's contents and aria) and its body. */
function section(id: string, heading: SafeHtml | string, body: SafeHtml): SafeHtml {
  return html`<section aria-labelledby="${id}-heading">
    <h2 id="${id}-heading">${heading}</h2>
    ${body}
  </section>`;
}

/** The body of an answered section, or its problem. */
function outcomeBody<T>(outcome: SectionOutcome<T>, answered: (answer: T) => SafeHtml, notAsked: SafeHtml | '' = ''): SafeHtml | '' {
  if (outcome === undefined) return notAsked;
  return 'problem' in outcome ? problemAlert(outcome.problem) : answered(outcome.answer);
}

/** The link to the next page of a paged section, saying the list is not complete; nothing on the last page. */
function moreLink(url: string | undefined, text: string): SafeHtml | '' {
  return url ? html`<p><a href="${url}">${text}</a> <span class="muted">(the list is not complete)</span></p>` : '';
}

function sourcesBody(answer: SourcesAnswer, context: SectionContext): SafeHtml {
  if (answer.total === 0) return html`<p>No source of this pack was available on ${calendarDay(answer.asOf)}.</p>`;
  return html`<p>${answer.total} ${answer.total === 1 ? 'source' : 'sources'} available.</p>
    <ul class="records">${answer.sources.map(
      (source) => html`<li data-source="${source.id}">
        <h3>${citationLink(source.citation, source.title)}</h3>
        <p class="muted"><code>${source.id}</code> · current version <span data-field="current">${source.current}</span></p>
        <ul class="listing">${source.versions.map(
          (v) => html`<li data-source-version="${v.version}">Version <strong>${v.version}</strong>${v.version === source.current ? ' (current)' : ''}:
            published ${calendarDay(v.published)}, reported ${calendarDay(v.reported)}, extraction ${v.extraction}</li>`,
        )}</ul>
      </li>`,
    )}</ul>
    ${moreLink(answer.nextCursor && context.urlWith({ sourcesCursor: answer.nextCursor }), 'More sources')}`;
}

/** The sources with a version available at the cutoff, each version with its dates and extraction. */
export function sourcesSection(outcome: SectionOutcome<SourcesAnswer>, context: SectionContext): SafeHtml {
  return section('sources', html`Sources on ${calendarDay(context.asOf)}`, html`${outcomeBody(outcome, (answer) => sourcesBody(answer, context))}`);
}

function stateBody(answer: StateAnswer, context: SectionContext, paged: boolean): SafeHtml {
  return html`<p data-field="assertion-total">${answer.total} accepted ${answer.total === 1 ? 'assertion' : 'assertions'} available.</p>
    ${paged ? html`<p><a href="${context.urlWith({})}">First assertions</a></p>` : ''}
    ${assertionList(answer.assertions, `No assertion of this pack was available on ${answer.asOf}.`)}
    ${moreLink(answer.nextCursor && context.urlWith({ cursor: answer.nextCursor }), 'More assertions')}`;
}

/** The accepted assertions available at the cutoff, with their evidence, a page at a time. */
export function assertionsSection(outcome: SectionOutcome<StateAnswer>, context: SectionContext, paged: boolean): SafeHtml {
  return section('assertions', html`Accepted assertions on ${calendarDay(context.asOf)}`, html`${outcomeBody(outcome, (answer) => stateBody(answer, context, paged))}`);
}

function insightsBody(answer: InsightsAnswer, context: SectionContext): SafeHtml {
  if (answer.total === 0) return html`<p>No insight was available on ${calendarDay(answer.asOf)}.</p>`;
  return html`<p>${answer.total} ${answer.total === 1 ? 'insight' : 'insights'} available.</p>
    <ul class="records">${answer.insights.map(
      (insight) => html`<li data-insight="${insight.id}">
        <p data-field="statement">${insight.statement}</p>
        <p class="muted"><code>${insight.id}</code> · available from ${calendarDay(insight.availableFrom)} · derived from
          ${insight.derivedFrom.map((id, i) => html`${i > 0 ? ', ' : ''}<code>${id}</code>`)}</p>
      </li>`,
    )}</ul>
    ${moreLink(answer.nextCursor && context.urlWith({ insightsCursor: answer.nextCursor }), 'More insights')}`;
}

/** The insights available at the cutoff, a page at a time. */
export function insightsSection(outcome: SectionOutcome<InsightsAnswer>, context: SectionContext): SafeHtml {
  return section('insights', html`Insights on ${calendarDay(context.asOf)}`, html`${outcomeBody(outcome, (answer) => insightsBody(answer, context))}`);
}

/** A short list of a changes answer, or nothing when it is empty. */
function changeList<T>(id: string, title: string, items: readonly T[], item: (value: T) => SafeHtml): SafeHtml | '' {
  if (items.length === 0) return '';
  return html`<h3 id="changes-${id}">${title}</h3><ul class="listing" aria-labelledby="changes-${id}" data-changes="${id}">${items.map(item)}</ul>`;
}

function changesBody(answer: ChangesAnswer): SafeHtml {
  const empty =
    answer.added.length + answer.superseded.length + answer.retracted.length + answer.sourceVersionsAdded.length + answer.insightsAdded.length + answer.insightsWithdrawn.length === 0;
  const ids = (list: readonly string[]) => list.map((id, i) => html`${i > 0 ? ', ' : ''}<code>${id}</code>`);
  return html`<p>What changed after ${calendarDay(answer.from)}, up to and including ${calendarDay(answer.asOf)}.</p>
    ${empty ? html`<p data-field="no-changes">Nothing changed in that interval.</p>` : ''}
    ${answer.added.length > 0 ? html`<h3 id="changes-added">Added</h3><ul class="records" aria-labelledby="changes-added" data-changes="added">${answer.added.map((a) => assertionItem(a))}</ul>` : ''}
    ${changeList('superseded', 'Superseded', answer.superseded, (s) => html`<li data-assertion="${s.id}"><span data-field="statement">${s.statement}</span>
      <span class="muted"><code>${s.id}</code> · superseded on ${calendarDay(s.on)} by ${ids(s.by)}</span></li>`)}
    ${changeList('retracted', 'Retracted', answer.retracted, (r) => html`<li data-assertion="${r.id}"><span data-field="statement">${r.statement}</span>
      <span class="muted"><code>${r.id}</code> · retracted on ${calendarDay(r.on)}</span></li>`)}
    ${changeList('sources', 'Source versions added', answer.sourceVersionsAdded, (v) => html`<li data-source="${v.source}">${v.title}, version ${v.version}
      <span class="muted">available from ${calendarDay(v.on)}</span></li>`)}
    ${changeList('insights-added', 'Insights added', answer.insightsAdded, (i) => html`<li data-insight="${i.id}">${i.statement}
      <span class="muted"><code>${i.id}</code> · from ${calendarDay(i.on)}</span></li>`)}
    ${changeList('insights-withdrawn', 'Insights withdrawn', answer.insightsWithdrawn, (i) => html`<li data-insight="${i.id}">${i.statement}
      <span class="muted"><code>${i.id}</code> · on ${calendarDay(i.on)}</span></li>`)}
    ${answer.truncated ? html`<p class="warning">Some lists were cut at their limit: choose a later from date to see the rest.</p>` : ''}`;
}

/** The "changes since" form (a from date) and, once asked, what was added, superseded and retracted up to the cutoff. */
export function changesSection(
  listing: PackListing,
  values: PackQuery,
  outcome: SectionOutcome<ChangesAnswer>,
  fromProblem: PageProblem | undefined,
): SafeHtml {
  const invalid = fromProblem ? html` aria-invalid="true" aria-describedby="from-error"` : '';
  return section(
    'changes',
    'Changes since',
    html`${pageForm(listing, values, 'changes-heading', html`<label for="from">Since (a date on or before the cutoff)</label>
        <input type="date" id="from" name="from" value="${values.from ?? ''}" required${invalid}>
        ${problemAlert(fromProblem, 'from-error')}
        ${values.q ? html`<input type="hidden" name="q" value="${values.q}">` : ''}
        <button type="submit">Show changes</button>`)}
      ${outcomeBody(outcome, changesBody)}`,
  );
}

function searchBody(answer: SearchAnswer): SafeHtml {
  if (answer.results.length === 0) return html`<p>No accepted assertion available on ${calendarDay(answer.asOf)} matches “${answer.question}”.</p>`;
  return html`<p>The best matches for “${answer.question}”, best first.</p>
    <ol class="hits" data-field="results">${answer.results.map((result) => assertionItem(result, result.score))}</ol>`;
}

/** The search box (q) and, once asked, the ranked assertions available at the cutoff. */
export function searchSection(listing: PackListing, values: PackQuery, outcome: SectionOutcome<SearchAnswer>): SafeHtml {
  return section(
    'search',
    'Search',
    html`${pageForm(listing, values, 'search-heading', html`<label for="q">Words to search for in the assertions, their quotes and sources</label>
        <input type="text" id="q" name="q" value="${values.q ?? ''}" maxlength="500" required>
        ${values.from ? html`<input type="hidden" name="from" value="${values.from}">` : ''}
        <button type="submit">Search</button>`)}
      ${outcomeBody(outcome, searchBody)}`,
  );
}
