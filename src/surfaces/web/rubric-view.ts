import {
  describeRubricChanges,
  type InstallationRubrics,
  type RubricContent,
  type RubricVersion,
  type RubricWithVersions,
} from '../../domains/education/rubrics/index.ts';
import { hiddenInput, html, showDate, type SafeHtml } from './layout.ts';
import { PRODUCTS_PAGE } from './product-install-view.ts';
import { refusalAlert, type FormRefusal } from './runtime-forms.ts';

/** Where the installing customer sees the rubric drafts of its installations. */
export const RUBRICS_PAGE = '/account/products/rubrics';

/** A refused mark and the version it was about (`rubricId:version`), or the top of the page. */
export interface RubricFormRefusal {
  at: string;
  refusal: FormRefusal;
}

const MARK_WORDS = { reviewed: 'Reviewed', dismissed: 'Dismissed' } as const;

/** The anchor of one version on the page. */
export const versionAnchor = (rubricId: string, version: number) => `rubric-${rubricId}-v${version}`;

/** A rubric's criteria as a table: weight, standards, and one column per level label with its descriptor. */
export function criteriaTable(content: RubricContent, caption: string): SafeHtml {
  return html`<table class="rubric">
    <caption class="muted">${caption}</caption>
    <thead><tr><th scope="col">Criterion</th><th scope="col">Weight</th>${content.levelLabels.map((label) => html`<th scope="col">${label}</th>`)}<th scope="col">Standards</th></tr></thead>
    <tbody>${content.criteria.map(
      (criterion) => html`<tr data-criterion="${criterion.name}">
        <th scope="row">${criterion.name}</th>
        <td data-field="weight">${criterion.weight}%</td>
        ${criterion.descriptors.map((d) => html`<td data-level="${d.level}">${d.text}</td>`)}
        <td>${criterion.alignment.map((a) => a.code).join(', ')}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function markForm(rubricId: string, version: RubricVersion, mark: 'reviewed' | 'dismissed', csrf: string): SafeHtml {
  const label = mark === 'reviewed' ? 'Mark reviewed' : 'Dismiss';
  return html`<form method="post" action="${RUBRICS_PAGE}/mark">
    ${hiddenInput('csrf', csrf)}${hiddenInput('rubric_id', rubricId)}${hiddenInput('version', String(version.version))}
    ${hiddenInput('mark', mark)}${hiddenInput('expected', version.review ?? 'none')}
    <button type="submit" aria-label="${label}: version ${version.version}">${label}</button>
  </form>`;
}

/** One version: when and by whom, its mark (with the forms to change it), what changed since the one before, its content. */
function versionItem(rubricId: string, version: RubricVersion, previous: RubricVersion | undefined, csrf: string, refusal: FormRefusal | undefined, latest: boolean): SafeHtml {
  const changes = previous ? describeRubricChanges(previous.content, version.content) : [];
  const forms = (['reviewed', 'dismissed'] as const).filter((mark) => version.review !== mark).map((mark) => markForm(rubricId, version, mark, csrf));
  return html`<li id="${versionAnchor(rubricId, version.version)}" data-version="${String(version.version)}" data-review="${version.review ?? 'none'}">
    <p><strong>Version ${version.version}</strong> <span class="badge">Proposed</span>
      ${version.review ? html`<span class="badge" data-field="review">${MARK_WORDS[version.review]}</span> <span class="muted">${showDate(version.reviewedAt ? new Date(version.reviewedAt) : null)}</span>` : html`<span class="muted" data-field="review">Not reviewed yet</span>`}</p>
    <p class="muted">Drafted ${showDate(new Date(version.createdAt))} by ${version.createdBy.name}${version.basedOnVersion ? ` from version ${version.basedOnVersion}` : ''}.</p>
    ${refusalAlert(refusal)}
    ${previous
      ? changes.length === 0
        ? html`<p>Same as version ${previous.version}.</p>`
        : html`<p>Changes from version ${previous.version}:</p><ul class="changes">${changes.map((change) => html`<li>${change}</li>`)}</ul>`
      : html`<p class="muted">${version.version === 1 ? 'The first version.' : 'Older versions are not shown here.'}</p>`}
    ${latest ? '' : html`<details><summary>Version ${version.version} in full</summary>${criteriaTable(version.content, `Version ${version.version}`)}</details>`}
    ${forms}
  </li>`;
}

/** One rubric: its latest version as a table, then every version with its changes and marks. */
export function rubricSection(item: RubricWithVersions, csrf: string, refused: RubricFormRefusal | undefined): SafeHtml {
  const { rubric, versions } = item;
  const latest = versions[0]!;
  const refusalFor = (v: RubricVersion) => (refused?.at === `${rubric.rubricId}:${v.version}` ? refused.refusal : undefined);
  return html`<section id="rubric-${rubric.rubricId}" data-rubric="${rubric.rubricId}" aria-labelledby="rubric-${rubric.rubricId}-heading">
    <h3 id="rubric-${rubric.rubricId}-heading">${latest.content.title}</h3>
    ${criteriaTable(latest.content, `Version ${latest.version}, the latest`)}
    ${latest.content.accessibility.length > 0 ? html`<p>Accessibility requirements: ${latest.content.accessibility.join('; ')}</p>` : ''}
    <h4>Versions</h4>
    <ol class="versions" reversed>${versions.map((v, k) => versionItem(rubric.rubricId, v, versions[k + 1], csrf, refusalFor(v), k === 0))}</ol>
    ${item.truncated ? html`<p class="muted">Only the ${versions.length} latest versions are shown.</p>` : ''}
  </section>`;
}

/** The page's body: what the page is, then each installation with its rubrics. */
export function rubricsBody(installations: readonly InstallationRubrics[], csrf: string, refused: RubricFormRefusal | undefined, shownAt: (at: string) => boolean): SafeHtml {
  const orphan = refused && !shownAt(refused.at) ? refused.refusal : undefined;
  return html`${refusalAlert(orphan)}
    <p>Rubrics the products you installed drafted for you. Every version is a proposal: it grades no one and is never
      applied to a learner. Marking a version reviewed or dismissed records that you did, and when; it changes nothing else.
      Your installations themselves are on <a href="${PRODUCTS_PAGE}">Products</a>.</p>
    ${installations.length === 0
      ? html`<p>You have installed no product.</p>`
      : installations.map(
          (installation) => html`<section data-installation="${installation.installationId}" aria-labelledby="installation-${installation.installationId}-rubrics">
            <h2 id="installation-${installation.installationId}-rubrics">${installation.productName}${installation.status === 'active' ? '' : ' (uninstalled)'}</h2>
            ${installation.rubrics.length === 0
              ? html`<p>${installation.productName} has drafted no rubric.</p>`
              : installation.rubrics.map((item) => rubricSection(item, csrf, refused))}
            ${installation.truncated ? html`<p class="muted">Only the ${installation.rubrics.length} most recently drafted rubrics are shown.</p>` : ''}
          </section>`,
        )}`;
}
