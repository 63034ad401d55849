import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { EducationRubricsService, RubricReviewMark } from '../../domains/education/rubrics/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage, sendRedirect } from './layout.ts';
import { RUBRICS_PAGE, rubricsBody, versionAnchor, type RubricFormRefusal } from './rubric-view.ts';
import { attempt, noticeFrom } from './runtime-forms.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';

/** What the rubric drafts page needs. */
export interface RubricPagesDependencies extends AccountPageDependencies {
  educationRubrics: Pick<EducationRubricsService, 'rubricsOfAccount' | 'markVersion'>;
}

// Chosen by key, so that no text of the URL reaches the page.
const NOTICES: Readonly<Record<string, string>> = {
  reviewed: 'The version is marked reviewed. Nothing else changed.',
  dismissed: 'The version is dismissed. Nothing else changed.',
};

const MARKS = new Set(['reviewed', 'dismissed']);

async function rubricsPage(
  c: Context<HttpEnv>,
  deps: RubricPagesDependencies,
  current: CurrentSession,
  refused?: RubricFormRefusal,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const installations = await deps.educationRubrics.rubricsOfAccount(current.session.accountId);
  const shown = new Set(installations.flatMap((i) => i.rubrics.flatMap((r) => r.versions.map((v) => `${r.rubric.rubricId}:${v.version}`))));
  return sendPage(
    c,
    {
      title: 'Rubric drafts',
      signedIn: signedInAs(current),
      body: html`${refused ? '' : noticeFrom(NOTICES, c.req.query('notice'))}${rubricsBody(installations, current.csrf, refused, (at) => shown.has(at))}`,
    },
    status,
  );
}

/** The form's fields, checked; anything malformed is refused before the domain is asked. */
function markOf(form: URLSearchParams): { rubricId: string; version: number; mark: RubricReviewMark; expected: RubricReviewMark | null } {
  const rubricId = form.get('rubric_id') ?? '';
  const version = form.get('version') ?? '';
  const mark = form.get('mark') ?? '';
  const expected = form.get('expected') ?? '';
  if (!/^[0-9a-f-]{36}$/i.test(rubricId) || !/^[1-9][0-9]{0,8}$/.test(version)) throw new KgateError('not_found', 'No such rubric version.');
  if (!MARKS.has(mark)) throw new KgateError('invalid_request', 'Choose Mark reviewed or Dismiss.', { field: 'mark' });
  if (expected !== 'none' && !MARKS.has(expected)) throw new KgateError('invalid_request', 'The form is not one this page made; reload it.', { field: 'expected' });
  return { rubricId, version: Number(version), mark: mark as RubricReviewMark, expected: expected === 'none' ? null : (expected as RubricReviewMark) };
}

/**
 * `/account/products/rubrics`: the rubric drafts of the installations the signed-in account installed (it is their
 * customer), each rubric's latest version as a table of weighted criteria and descriptors by level, and every version
 * with what changed from the one before in words. A version may be marked reviewed or dismissed by a CSRF-checked
 * form, for the installing account only (any other account is answered not_found), refused as a conflict when the
 * mark changed since the page was made; marking applies nothing.
 */
export function rubricPages(deps: RubricPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.get(
    RUBRICS_PAGE,
    accountPage(deps, (c, current) => rubricsPage(c, deps, current)),
  );
  app.post(
    `${RUBRICS_PAGE}/mark`,
    formBodyLimit,
    accountForm(deps, RUBRICS_PAGE, async (c, current, form) => {
      const at = `${form.get('rubric_id') ?? ''}:${form.get('version') ?? ''}`;
      const done = await attempt(async () => {
        const target = markOf(form);
        await deps.educationRubrics.markVersion(current.session.accountId, target);
        return target;
      });
      if (done.refusal) return rubricsPage(c, deps, current, { at, refusal: done.refusal }, done.refusal.status);
      return sendRedirect(c, `${RUBRICS_PAGE}?notice=${done.value.mark}#${versionAnchor(done.value.rubricId, done.value.version)}`);
    }),
  );
  return app;
}
