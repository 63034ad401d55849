import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DecidedMemoryCandidate, MemoryCandidate, RuntimeAdminService } from '../../domains/runtime/admin/index.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage } from './layout.ts';
import { candidateItem } from './memory-review-view.ts';
import { MEMORY_PAGE, PRODUCTS_PAGE } from './product-install-view.ts';
import { attempt, refusalAlert, type FormRefusal } from './runtime-forms.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';

/** What the shared memory page needs. */
export interface MemoryReviewPagesDependencies extends AccountPageDependencies {
  runtimeAdmin: Pick<RuntimeAdminService, 'listMemoryCandidates' | 'listDecidedMemory' | 'decideMemoryCandidate'>;
  vaults: Pick<VaultsService, 'listAccessibleMappings'>;
}

async function memoryPage(
  c: Context<HttpEnv>,
  deps: MemoryReviewPagesDependencies,
  current: CurrentSession,
  answer: { decided?: MemoryCandidate; refusal?: FormRefusal } = {},
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const accountId = current.session.accountId;
  const [candidates, decidedOnes, mappings] = await Promise.all([
    deps.runtimeAdmin.listMemoryCandidates(accountId),
    deps.runtimeAdmin.listDecidedMemory(accountId),
    deps.vaults.listAccessibleMappings(accountId),
  ]);
  const vaults = new Map(mappings.map(({ mapping }) => [mapping.vaultId, { mappingId: mapping.id, name: mapping.name }]));
  const item = (candidate: MemoryCandidate | DecidedMemoryCandidate) => candidateItem(candidate, vaults.get(candidate.vaultId), current.csrf);
  const { decided } = answer;
  return sendPage(
    c,
    {
      title: 'Shared memory',
      signedIn: signedInAs(current),
      body: html`${decided
          ? html`<p class="notice" role="status">“${decided.title}” was ${decided.status}.${decided.status === 'accepted' ? ' Products of its scope read it as shared memory from now on.' : ''}</p>`
          : ''}
        ${refusalAlert(answer.refusal)}
        <p>Products you <a href="${PRODUCTS_PAGE}">installed</a> may propose shared memory for a context scope: something they
          learned that the scope's products should remember. <strong>A candidate is never trusted</strong>: no product reads it
          as memory until a person who may write the vault accepts it here. Its text is shown exactly as the product wrote
          it; check it against its evidence before you accept it.</p>
        <section aria-labelledby="undecided-heading">
          <h2 id="undecided-heading">Waiting for a decision</h2>
          ${candidates.items.length === 0
            ? html`<p>No candidate is waiting in the vaults you can write.</p>`
            : html`<ul class="records">${candidates.items.map(item)}</ul>${candidates.truncated
                ? html`<p class="muted">The newest ${candidates.items.length} are shown; decide these to see the rest.</p>`
                : ''}`}
        </section>
        <section aria-labelledby="decided-heading">
          <h2 id="decided-heading">Decided</h2>
          ${decidedOnes.items.length === 0
            ? html`<p>Nothing has been accepted or rejected yet in the vaults you can write.</p>`
            : html`<ul class="records">${decidedOnes.items.map(item)}</ul>${decidedOnes.truncated
                ? html`<p class="muted">The ${decidedOnes.items.length} newest decisions are shown.</p>`
                : ''}`}
        </section>`,
    },
    status,
  );
}

/**
 * `/account/products/memory`: the shared memory candidates that products proposed for vaults the person may write now,
 * with Accept and Reject (CSRF-checked; the domain checks vault.write again and decides once: a decided candidate is
 * `conflict`, shown inline). Below the ones still waiting, the decided ones, newest decision first, with who decided
 * and when; the answer to a decision says what was decided.
 */
export function memoryReviewPages(deps: MemoryReviewPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    MEMORY_PAGE,
    accountPage(deps, (c, current) => memoryPage(c, deps, current)),
  );

  app.post(
    `${MEMORY_PAGE}/decide`,
    formBodyLimit,
    accountForm(deps, MEMORY_PAGE, async (c, current, form) => {
      // The domain checks the decision word; anything else is passed as it came and refused there.
      const decision = (form.get('decision') ?? '') as 'accepted';
      const done = await attempt(() => deps.runtimeAdmin.decideMemoryCandidate(current.session.accountId, form.get('candidate_id') ?? '', decision));
      if (done.refusal) return memoryPage(c, deps, current, { refusal: done.refusal }, done.refusal.status);
      return memoryPage(c, deps, current, { decided: done.value });
    }),
  );

  return app;
}
