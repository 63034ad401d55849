import type { ProductInstallation, RuntimeOrganization, RuntimeProduct } from '../../domains/runtime/admin/index.ts';
import { DEFAULT_MEDIA_STORAGE_BYTES, type ProductRuntimeSettings } from '../../domains/runtime/index.ts';
import { hiddenInput, html, showDate, type SafeHtml } from './layout.ts';
import { brandFields, brandValuesFrom, EMPTY_PRODUCT, productFields, type BrandValues, type ProductValues } from './runtime-admin-form.ts';
import { confirmationBox, refusalAlert, type FormRefusal } from './runtime-forms.ts';

/** Where organization admins manage their organizations' products. */
export const RUNTIME_ADMIN_PAGE = '/account/runtime';

/** A product's page. */
export const productPath = (productId: string) => `${RUNTIME_ADMIN_PAGE}/products/${encodeURIComponent(productId)}`;
/** An installation's page under its product: its service principals and their credentials. */
export const installationPath = (productId: string, installationId: string) =>
  `${productPath(productId)}/installations/${encodeURIComponent(installationId)}`;

/** A form of the organizations page refused, shown again as written. */
export type OrganizationFormState =
  | { organizationId: string; form: 'brand'; values: BrandValues; refusal: FormRefusal }
  | { organizationId: string; form: 'product'; values: ProductValues; refusal: FormRefusal };

const count = (n: number) => n.toLocaleString('en-US');

/** `settings.productRuntime` in words, with the meaning of each field left out (docs/runtime.md). */
function settingsList(settings: ProductRuntimeSettings): SafeHtml {
  const operations = settings.apiOperationsPerMonth;
  const budget = settings.intelligenceBudgetMicrodollarsMonthly;
  const media = settings.mediaStorageBytes ?? DEFAULT_MEDIA_STORAGE_BYTES;
  return html`<dl>
    <dt>API operations a month</dt><dd data-field="apiOperationsPerMonth">${operations === undefined
      ? 'no cap'
      : operations === 0 ? '0: paused (every call is refused with runtime_paused)' : count(operations)}</dd>
    <dt>Intelligence budget a month</dt><dd>${budget === undefined || budget === 0
      ? 'none: metered intelligence is refused'
      : `${count(budget)} microdollars (${(budget / 1_000_000).toLocaleString('en-US', { style: 'currency', currency: 'USD' })})`}</dd>
    <dt>Concurrent intelligence calls</dt><dd>${settings.maxConcurrentIntelligence === undefined ? 'not set' : count(settings.maxConcurrentIntelligence)}</dd>
    <dt>Media storage</dt><dd>${count(Math.round(media / (1024 * 1024)))} MiB${settings.mediaStorageBytes === undefined ? ' (the default)' : ''}</dd>
  </dl>`;
}

function productRow(product: RuntimeProduct): SafeHtml {
  return html`<tr data-product="${product.slug}">
    <th scope="row"><a href="${productPath(product.id)}">${product.name}</a></th>
    <td><code>${product.slug}</code></td>
    <td data-field="status">${product.status}</td>
    <td>${product.domainPack ?? 'none'}</td>
    <td>${showDate(product.createdAt)}</td>
  </tr>`;
}

/** One organization: its settings (read-only), its brand form, its products and the form that defines one. */
export function organizationSection(
  organization: RuntimeOrganization,
  products: { items: RuntimeProduct[]; truncated: boolean },
  csrf: string,
  state: OrganizationFormState | undefined,
): SafeHtml {
  const id = `org-${organization.id}`;
  const brandState = state?.organizationId === organization.id && state.form === 'brand' ? state : undefined;
  const productState = state?.organizationId === organization.id && state.form === 'product' ? state : undefined;
  const table =
    products.items.length === 0
      ? html`<p>No products yet.</p>`
      : html`<table>
          <caption class="muted">Products of ${organization.name}${products.truncated ? ` (the first ${products.items.length})` : ''}</caption>
          <thead><tr><th scope="col">Product</th><th scope="col">Slug</th><th scope="col">Status</th><th scope="col">Domain pack</th>
            <th scope="col">Defined</th></tr></thead>
          <tbody>${products.items.map(productRow)}</tbody>
        </table>`;
  return html`<section id="${id}" aria-labelledby="${id}-heading" class="organization">
    <h2 id="${id}-heading">${organization.name}</h2>
    ${organization.status === 'suspended'
      ? html`<p class="warning" role="status">The operator suspended this organization: every credential of its products is refused
          (organization_suspended) until it is resumed.</p>`
      : ''}
    <p>Slug <code>${organization.slug}</code>. These settings are the operator's: ask the operator of this server to change them.</p>
    ${settingsList(organization.settings)}
    <h3 id="${id}-products">Products</h3>
    ${table}
    <h4 id="${id}-define">Define a product</h4>
    <form method="post" action="${RUNTIME_ADMIN_PAGE}/products" aria-labelledby="${id}-define">
      ${hiddenInput('csrf', csrf)}${hiddenInput('organization_id', organization.id)}
      ${productFields(`${id}-new`, productState?.values ?? EMPTY_PRODUCT, productState?.refusal, true)}
      <button type="submit">Define product</button>
    </form>
    <h3 id="${id}-brand">Brand profile</h3>
    <p class="muted">How your products present themselves: presentation only, never authority. ${organization.brand
      ? 'Remove brand removes it.'
      : 'None is set.'}</p>
    <form method="post" action="${RUNTIME_ADMIN_PAGE}/brand">
      ${hiddenInput('csrf', csrf)}${hiddenInput('organization_id', organization.id)}
      ${brandFields(`${id}-brand`, brandState?.values ?? brandValuesFrom(organization.brand), brandState?.refusal)}
      <button type="submit">Save brand</button>
    </form>
    ${organization.brand
      ? html`<form method="post" action="${RUNTIME_ADMIN_PAGE}/brand/remove">
          ${hiddenInput('csrf', csrf)}${hiddenInput('organization_id', organization.id)}
          <button type="submit" aria-label="Remove the brand of ${organization.name}">Remove brand</button>
        </form>`
      : ''}
  </section>`;
}

/** What an account that administers no organization reads instead. */
export const NO_ORGANIZATION = html`<p data-field="no-organization">You administer no product organization, so there is nothing to
  manage here. Product organizations are created by the operator of this server, who names their first admin; ask the
  operator if you should be one. To use a product with your own workspaces, see <a href="/account/products">Products</a>.</p>`;

function installationRow(productId: string, installation: ProductInstallation): SafeHtml {
  return html`<tr data-installation="${installation.id}">
    <th scope="row">${installation.customer.email}</th>
    <td data-field="status">${installation.status}</td>
    <td>${showDate(installation.createdAt)}</td>
    <td>${showDate(installation.uninstalledAt, '–')}</td>
    <td><a href="${installationPath(productId, installation.id)}" aria-label="Principals and credentials of the installation of ${installation.customer.email}">Principals and credentials</a></td>
  </tr>`;
}

/** A product's page: what it is, the edit form (while active), Retire with a confirmation, and its installations. */
export function productBody(
  product: RuntimeProduct,
  organization: RuntimeOrganization,
  installations: { items: ProductInstallation[]; truncated: boolean },
  csrf: string,
  form: { values: ProductValues; refusal?: FormRefusal | undefined; retireRefusal?: FormRefusal | undefined },
): SafeHtml {
  const active = product.status === 'active';
  const edit = active
    ? html`<h2 id="edit-heading">Definition</h2>
      <form method="post" action="${productPath(product.id)}">
        ${hiddenInput('csrf', csrf)}
        ${productFields('product', form.values, form.refusal, false)}
        <button type="submit">Save product</button>
      </form>
      <h2 id="retire-heading">Retire</h2>
      <p>Retiring stops every installation of the product at once (their calls are refused with product_retired) and nobody can
        install it any more. It cannot be undone.</p>
      ${refusalAlert(form.retireRefusal)}
      <form method="post" action="${productPath(product.id)}/retire">
        ${hiddenInput('csrf', csrf)}
        ${confirmationBox('retire-confirm', `I want to retire ${product.name} and stop all its installations`)}
        <button type="submit">Retire product</button>
      </form>`
    : html`<p class="warning" role="status">This product is retired: its installations are stopped and it cannot change.</p>`;
  const table =
    installations.items.length === 0
      ? html`<p>Nobody has installed it yet.</p>`
      : html`<table>
          <caption class="muted">Installations, newest first${installations.truncated ? ` (the first ${installations.items.length})` : ''}</caption>
          <thead><tr><th scope="col">Customer</th><th scope="col">Status</th><th scope="col">Installed</th><th scope="col">Uninstalled</th>
            <th scope="col"><span class="muted">Credentials</span></th></tr></thead>
          <tbody>${installations.items.map((item) => installationRow(product.id, item))}</tbody>
        </table>`;
  return html`<p><a href="${RUNTIME_ADMIN_PAGE}">All organizations</a></p>
    <dl>
      <dt>Organization</dt><dd>${organization.name}</dd>
      <dt>Slug</dt><dd><code>${product.slug}</code></dd>
      <dt>Status</dt><dd data-field="status">${product.status}</dd>
      <dt>Defined</dt><dd>${showDate(product.createdAt)}</dd>
    </dl>
    ${edit}
    <h2>Installations</h2>
    <p>A customer installs the product on their Products page and grants it vaults. You issue each installation's service
      principals and their credentials.</p>
    ${table}`;
}
