import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { RuntimeAdminService, RuntimeOrganization, RuntimeProduct } from '../../domains/runtime/admin/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage, sendRedirect } from './layout.ts';
import { brandProfileOf, brandValuesOf, productChangeOf, productDefinitionOf, productValuesFrom, productValuesOf, type ProductValues } from './runtime-admin-form.ts';
import { NO_ORGANIZATION, RUNTIME_ADMIN_PAGE, organizationSection, productBody, productPath, type OrganizationFormState } from './runtime-admin-view.ts';
import { attempt, jsonFormBodyLimit, noticeFrom, refusalAlert, requireConfirmation, type FormRefusal } from './runtime-forms.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';
import { INTELLIGENCE_SPENDING_PAGE } from './intelligence-spending-view.ts';

/** What the organization and product pages need. */
export interface RuntimeAdminPagesDependencies extends AccountPageDependencies {
  runtimeAdmin: Pick<
    RuntimeAdminService,
    'listMyOrganizations' | 'listProducts' | 'createProduct' | 'updateProduct' | 'retireProduct' | 'setBrand' | 'listInstallationsOfProduct'
  >;
}

// Notices after a redirect are chosen by key, so no text from the URL ever reaches the page.
const NOTICES: Readonly<Record<string, string>> = {
  brand_saved: 'The brand profile was saved. Products show it from their next call.',
  brand_removed: 'The brand profile was removed.',
  created: 'The product was defined. Customers can install it now.',
  saved: 'The product was saved.',
  retired: 'The product was retired: its installations are stopped.',
};

/** The product with this id of an organization the account administers, with it; `not_found` for anything else. */
export async function adminProduct(
  deps: Pick<RuntimeAdminPagesDependencies, 'runtimeAdmin'>,
  accountId: string,
  productId: string,
): Promise<{ product: RuntimeProduct; organization: RuntimeOrganization }> {
  for (const organization of await deps.runtimeAdmin.listMyOrganizations(accountId)) {
    const product = (await deps.runtimeAdmin.listProducts(accountId, organization.id)).items.find((item) => item.id === productId);
    if (product) return { product, organization };
  }
  throw new KgateError('not_found', 'The product does not exist.');
}

async function organizationsPage(
  c: Context<HttpEnv>,
  deps: RuntimeAdminPagesDependencies,
  current: CurrentSession,
  state?: OrganizationFormState,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const accountId = current.session.accountId;
  const organizations = await deps.runtimeAdmin.listMyOrganizations(accountId);
  const sections = await Promise.all(
    organizations.map(async (organization) => organizationSection(organization, await deps.runtimeAdmin.listProducts(accountId, organization.id), current.csrf, state)),
  );
  // A refusal of a form whose organization the account does not administer has no section to stand in.
  const orphan = state && !organizations.some((o) => o.id === state.organizationId) ? state.refusal : undefined;
  return sendPage(
    c,
    {
      title: 'Product runtime',
      signedIn: signedInAs(current),
      body: html`${noticeFrom(NOTICES, c.req.query('notice'))}
        ${refusalAlert(orphan)}
        <p>Here organization admins define their organization's products and brand, and issue the service principals and
          credentials of each installation. What metered intelligence cost this month is on
          <a href="${INTELLIGENCE_SPENDING_PAGE}">Intelligence spending</a>.</p>
        ${organizations.length === 0 ? NO_ORGANIZATION : sections}`,
    },
    status,
  );
}

async function productPage(
  c: Context<HttpEnv>,
  deps: RuntimeAdminPagesDependencies,
  current: CurrentSession,
  productId: string,
  form: { values?: ProductValues; refusal?: FormRefusal; retireRefusal?: FormRefusal } = {},
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const accountId = current.session.accountId;
  const { product, organization } = await adminProduct(deps, accountId, productId);
  const installations = await deps.runtimeAdmin.listInstallationsOfProduct(accountId, product.id);
  return sendPage(
    c,
    {
      title: product.name,
      signedIn: signedInAs(current),
      body: html`${noticeFrom(NOTICES, c.req.query('notice'))}
        ${productBody(product, organization, installations, current.csrf, { ...form, values: form.values ?? productValuesFrom(product) })}`,
    },
    status,
  );
}

/**
 * `/account/runtime`: the organizations the account administers (settings read-only: the operator's), each with its
 * brand profile form, its products and the form that defines one; `/account/runtime/products/{id}`: a product's
 * definition, Retire (confirmed) and its installations. Every form is CSRF-checked; the domain decides who
 * administers what (an account that administers nothing gets `not_found` and nothing changes). Refusals are shown
 * inline, by field where the domain names one.
 */
export function runtimeAdminPages(deps: RuntimeAdminPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    RUNTIME_ADMIN_PAGE,
    accountPage(deps, (c, current) => organizationsPage(c, deps, current)),
  );

  app.post(
    `${RUNTIME_ADMIN_PAGE}/brand`,
    formBodyLimit,
    accountForm(deps, RUNTIME_ADMIN_PAGE, async (c, current, form) => {
      const organizationId = form.get('organization_id') ?? '';
      const values = brandValuesOf(form);
      const done = await attempt(() => deps.runtimeAdmin.setBrand(current.session.accountId, organizationId, brandProfileOf(values)));
      if (done.refusal) {
        return organizationsPage(c, deps, current, { organizationId, form: 'brand', values, refusal: done.refusal }, done.refusal.status);
      }
      return sendRedirect(c, `${RUNTIME_ADMIN_PAGE}?notice=brand_saved#org-${done.value.id}`);
    }),
  );

  app.post(
    `${RUNTIME_ADMIN_PAGE}/brand/remove`,
    formBodyLimit,
    accountForm(deps, RUNTIME_ADMIN_PAGE, async (c, current, form) => {
      const organizationId = form.get('organization_id') ?? '';
      const done = await attempt(() => deps.runtimeAdmin.setBrand(current.session.accountId, organizationId, null));
      if (done.refusal) {
        return organizationsPage(c, deps, current, { organizationId, form: 'brand', values: brandValuesOf(new URLSearchParams()), refusal: done.refusal }, done.refusal.status);
      }
      return sendRedirect(c, `${RUNTIME_ADMIN_PAGE}?notice=brand_removed#org-${done.value.id}`);
    }),
  );

  app.post(
    `${RUNTIME_ADMIN_PAGE}/products`,
    jsonFormBodyLimit,
    accountForm(deps, RUNTIME_ADMIN_PAGE, async (c, current, form) => {
      const organizationId = form.get('organization_id') ?? '';
      const values = productValuesOf(form);
      const done = await attempt(() => deps.runtimeAdmin.createProduct(current.session.accountId, organizationId, productDefinitionOf(values)));
      if (done.refusal) {
        return organizationsPage(c, deps, current, { organizationId, form: 'product', values, refusal: done.refusal }, done.refusal.status);
      }
      return sendRedirect(c, `${productPath(done.value.id)}?notice=created`);
    }),
  );

  app.get(
    `${RUNTIME_ADMIN_PAGE}/products/:productId`,
    accountPage(deps, (c, current) => productPage(c, deps, current, (c.req.param('productId') ?? ''))),
  );

  app.post(
    `${RUNTIME_ADMIN_PAGE}/products/:productId`,
    jsonFormBodyLimit,
    accountForm(deps, RUNTIME_ADMIN_PAGE, async (c, current, form) => {
      const productId = (c.req.param('productId') ?? '');
      const values = productValuesOf(form);
      const done = await attempt(() => deps.runtimeAdmin.updateProduct(current.session.accountId, productId, productChangeOf(values)));
      if (done.refusal) return productPage(c, deps, current, productId, { values, refusal: done.refusal }, done.refusal.status);
      return sendRedirect(c, `${productPath(productId)}?notice=saved`);
    }),
  );

  app.post(
    `${RUNTIME_ADMIN_PAGE}/products/:productId/retire`,
    formBodyLimit,
    accountForm(deps, RUNTIME_ADMIN_PAGE, async (c, current, form) => {
      const productId = (c.req.param('productId') ?? '');
      const done = await attempt(async () => {
        requireConfirmation(form, 'retire the product');
        return deps.runtimeAdmin.retireProduct(current.session.accountId, productId);
      });
      if (done.refusal) return productPage(c, deps, current, productId, { retireRefusal: done.refusal }, done.refusal.status);
      return sendRedirect(c, `${productPath(productId)}?notice=retired`);
    }),
  );

  return app;
}
