import type { AssertionAnswer, CalendarDate, EvidenceAnswer, PackListing, PackRef } from '../../domains/packs/index.ts';
import { hiddenInput, html, showDate, type SafeHtml } from './layout.ts';

// The markup of the published intelligence pages (docs/workspace.md, "Published intelligence"). Everything a pack
// holds is its publisher's text, untrusted here: it goes through `html`, which escapes it, and a citation becomes a
// link only when it is an https address (publishing checked that; the page does not rely on it).

/** Where people see the packs they are entitled to. */
export const INTELLIGENCE_PAGE = '/account/intelligence';

/** A pack's page. */
export const packPath = (product: string, pack: string) => `${INTELLIGENCE_PAGE}/${encodeURIComponent(product)}/${encodeURIComponent(pack)}`;

/** The query of a pack's page, as written in the address (every field optional; blank ones are left out of links). */
export interface PackQuery {
  asOf?: string | undefined;
  version?: string | undefined;
  from?: string | undefined;
  q?: string | undefined;
  /** The cursors of the paged sections: assertions, sources and insights. */
  cursor?: string | undefined;
  sourcesCursor?: string | undefined;
  insightsCursor?: string | undefined;
}

/** A pack's page with this query. */
export function packUrl(product: string, pack: string, query: PackQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (typeof value === 'string' && value !== '') params.set(name, value);
  const search = params.toString();
  return search === '' ? packPath(product, pack) : `${packPath(product, pack)}?${search}`;
}

/** Why an input or an answer of the page was refused: shown where it belongs, with its stable code. */
export interface PageProblem {
  message: string;
  code: string;
  field?: string | undefined;
}

/** What a section shows: the answer, why there is none, or nothing asked yet. */
export type SectionOutcome<T> = { answer: T } | { problem: PageProblem } | undefined;

/** A problem as an alert; `id` lets the input it is about point at it with aria-describedby. */
export function problemAlert(problem: PageProblem | undefined, id?: string): SafeHtml | '' {
  if (!problem) return '';
  return html`<p class="error" role="alert"${id ? html` id="${id}"` : ''} data-code="${problem.code}"${problem.field ? html` data-field="${problem.field}"` : ''}>${problem.message}</p>`;
}

/** A calendar date, machine-readable too. */
export const calendarDay = (date: CalendarDate): SafeHtml => html`<time datetime="${date}">${date}</time>`;

/** How pages name who published a version: `operator` or `account:<id>` (docs/packs.md), anything else as it is. */
function publisherName(publishedBy: string): string {
  if (publishedBy === 'operator') return 'the operator';
  if (publishedBy.startsWith('account:')) return 'an admin of the organization';
  return publishedBy;
}

const ENTITLED_WORDS: Readonly<Record<PackListing['entitledAs'], string>> = {
  admin: 'admin of the organization',
  customer: 'customer (installed)',
};

function versionsTable(listing: PackListing): SafeHtml {
  return html`<table>
    <caption class="muted">Versions of ${listing.title}, newest first</caption>
    <thead><tr><th scope="col">Version</th><th scope="col">Published</th><th scope="col">By</th><th scope="col">Sources</th>
      <th scope="col">Assertions</th><th scope="col">Insights</th></tr></thead>
    <tbody>${listing.versions.map(
      (v) => html`<tr data-version="${v.version}">
        <th scope="row"><a href="${packUrl(listing.product, listing.pack, { version: String(v.version) })}" aria-label="Version ${v.version} of ${listing.title}">${v.version}</a></th>
        <td>${showDate(v.publishedAt)}</td>
        <td>${publisherName(v.publishedBy)}</td>
        <td>${v.sources}</td><td>${v.assertions}</td><td>${v.insights}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

/** The list of packs the person is entitled to, or how packs come to be when there is none. */
export function packListBody(listings: readonly PackListing[]): SafeHtml {
  const intro = html`<p>Published intelligence is what a product's agents are told about its domain: sources, accepted assertions with
    their evidence, and insights, each answered as of a date. Organization admins see what they published; customers see what
    the agents of the products they <a href="/account/products">installed</a> will be told.</p>`;
  if (listings.length === 0) {
    return html`${intro}
      <p data-field="no-packs">No published intelligence pack is available to you. You see a product's packs when you have installed
        the product or administer its organization. The operator or an organization admin publishes a pack from a folder with
        <code>kgate packs publish DIR</code>; the folder format is described in <code>docs/packs.md</code>.</p>`;
  }
  return html`${intro}
    <ul class="records">${listings.map(
      (listing) => html`<li data-pack="${listing.product}/${listing.pack}">
        <h2><a href="${packPath(listing.product, listing.pack)}">${listing.title}</a></h2>
        <dl>
          <dt>Product</dt><dd>${listing.productName} <code>${listing.product}</code></dd>
          <dt>Pack</dt><dd><code>${listing.pack}</code></dd>
          <dt>You see it as</dt><dd data-field="entitled-as">${ENTITLED_WORDS[listing.entitledAs]}</dd>
        </dl>
        ${versionsTable(listing)}
      </li>`,
    )}</ul>`;
}

/** What the page says about the person's standing and the version answered. */
export function packHeader(listing: PackListing, ref: PackRef | undefined): SafeHtml {
  return html`<p><a href="${INTELLIGENCE_PAGE}">All published intelligence</a></p>
    <p>${listing.entitledAs === 'admin'
      ? 'You administer the organization of this product: this is the intelligence it published, as the published-intelligence tools answer it.'
      : 'You installed this product: this is what its agents are told, as the published-intelligence tools answer them.'}
      The text is the publisher's, shown exactly as written.</p>
    <dl>
      <dt>Product</dt><dd>${listing.productName} <code>${listing.product}</code></dd>
      <dt>Pack</dt><dd><code>${listing.pack}</code></dd>
      <dt>You see it as</dt><dd data-field="entitled-as">${ENTITLED_WORDS[listing.entitledAs]}</dd>
      ${ref ? html`<dt>Version shown</dt><dd data-field="version">${ref.version}, published ${showDate(new Date(ref.publishedAt))}</dd>` : ''}
    </dl>`;
}

/** The values the forms show, as written, and the problems of the cutoff form's fields. */
export interface CutoffFormState {
  values: PackQuery;
  asOfProblem?: PageProblem | undefined;
  versionProblem?: PageProblem | undefined;
}

const invalid = (problem: PageProblem | undefined, id: string) => (problem ? html` aria-invalid="true" aria-describedby="${id}"` : '');

/**
 * The cutoff form: the date (asOf) and the version. The changes and search inputs of the page ride along, so that a
 * new date answers them again at it; a cursor does not (it belongs to one cutoff).
 */
export function cutoffForm(listing: PackListing, state: CutoffFormState): SafeHtml {
  const { values } = state;
  const pinned = values.version ?? '';
  const listed = listing.versions.some((v) => String(v.version) === pinned);
  return html`<form method="get" action="${packPath(listing.product, listing.pack)}" aria-labelledby="cutoff-heading">
    <h2 id="cutoff-heading">Cutoff</h2>
    <label for="asOf">As of (a date: only what was available on it is shown)</label>
    <input type="date" id="asOf" name="asOf" value="${values.asOf ?? ''}" required${invalid(state.asOfProblem, 'asOf-error')}>
    ${problemAlert(state.asOfProblem, 'asOf-error')}
    <label for="version">Pack version</label>
    <select id="version" name="version"${invalid(state.versionProblem, 'version-error')}>
      <option value="">The latest</option>
      ${listing.versions.map((v) => html`<option value="${v.version}"${String(v.version) === pinned ? html` selected` : ''}>Version ${v.version}, published ${v.publishedAt.toISOString().slice(0, 10)}</option>`)}
      ${pinned !== '' && !listed && !state.versionProblem ? html`<option value="${pinned}" selected>Version ${pinned}</option>` : ''}
    </select>
    ${problemAlert(state.versionProblem, 'version-error')}
    ${values.from ? hiddenInput('from', values.from) : ''}${values.q ? hiddenInput('q', values.q) : ''}
    <button type="submit">Show</button>
  </form>`;
}

/** The sections' anchors, for a short table of contents. */
export const PAGE_CONTENTS = html`<nav class="tabs" aria-label="On this page"><ul>
  <li><a href="#sources-heading">Sources</a></li>
  <li><a href="#assertions-heading">Assertions</a></li>
  <li><a href="#insights-heading">Insights</a></li>
  <li><a href="#changes-heading">Changes since</a></li>
  <li><a href="#search-heading">Search</a></li>
</ul></nav>`;

/** A citation as a link when it is an https address; otherwise its text. */
export function citationLink(citation: string, text: string): SafeHtml {
  return /^https:\/\//i.test(citation) ? html`<a href="${citation}" rel="noopener noreferrer">${text}</a>` : html`${text} <span class="muted">(${citation})</span>`;
}

function evidenceItem(evidence: EvidenceAnswer): SafeHtml {
  const [first, last] = evidence.lines;
  return html`<li data-evidence="${evidence.source}">
    <blockquote data-field="quote">${evidence.quote}</blockquote>
    <p class="muted">${citationLink(evidence.citation, evidence.sourceTitle)}, version <span data-field="source-version">${evidence.version}</span>
      (extraction ${evidence.extraction}), <span data-field="lines">${first === last ? `line ${first}` : `lines ${first}–${last}`}</span></p>
  </li>`;
}

/** One accepted assertion with its dates and evidence; `score` is a search result's. */
export function assertionItem(assertion: AssertionAnswer, score?: number): SafeHtml {
  return html`<li data-assertion="${assertion.id}">
    <p data-field="statement">${assertion.statement}</p>
    <p class="muted"><code>${assertion.id}</code> · accepted ${calendarDay(assertion.accepted)}${assertion.availableFrom !== assertion.accepted
      ? html` · available from ${calendarDay(assertion.availableFrom)}`
      : ''}${assertion.supersedes.length > 0 ? html` · supersedes ${assertion.supersedes.map((id, i) => html`${i > 0 ? ', ' : ''}<code>${id}</code>`)}` : ''}${score === undefined
      ? ''
      : html` · score <span data-field="score">${score.toFixed(2)}</span>`}</p>
    <p>Evidence:</p>
    <ul class="listing">${assertion.evidence.map(evidenceItem)}</ul>
  </li>`;
}

/** A list of assertions, or what to say when there is none. */
export function assertionList(assertions: readonly AssertionAnswer[], none: string): SafeHtml {
  return assertions.length === 0 ? html`<p>${none}</p>` : html`<ul class="records">${assertions.map((a) => assertionItem(a))}</ul>`;
}

/** A GET form of the page that keeps the cutoff and version: the changes and search forms. */
export function pageForm(listing: PackListing, values: PackQuery, labelledBy: string, inner: SafeHtml): SafeHtml {
  return html`<form method="get" action="${packPath(listing.product, listing.pack)}" aria-labelledby="${labelledBy}">
    ${values.asOf ? hiddenInput('asOf', values.asOf) : ''}${values.version ? hiddenInput('version', values.version) : ''}
    ${inner}
  </form>`;
}
