import type { CustomerInstallation, InstallableProduct, VaultGrant } from '../../domains/runtime/admin/index.ts';
import type { Workspace } from '../../domains/workspaces/index.ts';
import { hiddenInput, html, showDate, type SafeHtml } from './layout.ts';
import { confirmationBox, refusalAlert, type FormRefusal } from './runtime-forms.ts';

/** Where a customer installs products and gives them workspaces and vaults. */
export const PRODUCTS_PAGE = '/account/products';
/** Where people decide what products propose as shared memory. */
export const MEMORY_PAGE = `${PRODUCTS_PAGE}/memory`;

/** A vault the customer may grant: of an assigned workspace where the customer is owner or admin. */
export interface GrantableVault {
  vaultId: string;
  name: string;
  workspaceId: string;
  workspaceName: string;
}

/** A refusal and the form it belongs to: `install`, or an installation's id (that installation's forms). */
export interface InstallFormRefusal {
  at: string;
  refusal: FormRefusal;
}

const ACCESS_WORDS = { read: 'read', publish: 'read and publish' } as const;

function postForm(action: string, csrf: string, fields: Record<string, string>, inner: SafeHtml): SafeHtml {
  return html`<form method="post" action="${PRODUCTS_PAGE}/${action}">
    ${hiddenInput('csrf', csrf)}${Object.entries(fields).map(([name, value]) => hiddenInput(name, value))}
    ${inner}
  </form>`;
}

/** The products that can be installed now, each with Install (or a word that it is installed). */
export function installableTable(products: readonly InstallableProduct[], installed: ReadonlySet<string>, csrf: string, truncated: boolean): SafeHtml {
  if (products.length === 0) return html`<p>No product can be installed on this server yet.</p>`;
  return html`<table>
    <caption class="muted">Products you can install${truncated ? ` (the first ${products.length})` : ''}</caption>
    <thead><tr><th scope="col">Product</th><th scope="col">By</th><th scope="col">Domain</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
    <tbody>${products.map(
      (product) => html`<tr data-product="${product.slug}">
        <th scope="row">${product.name}</th>
        <td>${product.organizationName}</td>
        <td>${product.domainPack ?? 'none'}</td>
        <td>${installed.has(product.slug)
          ? 'Installed'
          : postForm('install', csrf, { product_slug: product.slug }, html`<button type="submit" aria-label="Install ${product.name}">Install</button>`)}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function grantRow(installation: CustomerInstallation, grant: VaultGrant, workspaceName: string, csrf: string): SafeHtml {
  const id = `grant-${installation.id}-${grant.vaultId}`;
  const fields = { installation_id: installation.id, vault_id: grant.vaultId };
  return html`<tr data-grant="${grant.vaultId}">
    <th scope="row">${grant.vaultName}</th>
    <td>${workspaceName}</td>
    <td data-field="access">${ACCESS_WORDS[grant.access]}</td>
    <td>${showDate(grant.boundAt, 'not yet')}</td>
    <td>${postForm('grant', csrf, fields, html`<label class="inline" for="${id}">Access to ${grant.vaultName}</label>
        <select id="${id}" name="access">
          <option value="read"${grant.access === 'read' ? html` selected` : ''}>read</option>
          <option value="publish"${grant.access === 'publish' ? html` selected` : ''}>read and publish</option>
        </select>
        <button type="submit" aria-label="Change the access to ${grant.vaultName}">Change</button>`)}
      ${postForm('revoke-grant', csrf, fields, html`<button type="submit" aria-label="Revoke the grant of ${grant.vaultName}">Revoke</button>`)}</td>
  </tr>`;
}

/**
 * One installation: what it is, its intelligence sublimit, its workspaces (assign, unassign), its vault grants (grant,
 * change, revoke) and Uninstall with a confirmation. `workspaces` are those the customer may assign (owner or admin).
 */
export function installationSection(
  installation: CustomerInstallation,
  workspaces: readonly Workspace[],
  vaults: readonly GrantableVault[],
  csrf: string,
  refusal: FormRefusal | undefined,
): SafeHtml {
  const id = `installation-${installation.id}`;
  const name = installation.product.name;
  const own = { installation_id: installation.id };
  const assigned = new Set(installation.assignments.map((a) => a.workspaceId));
  const workspaceName = (workspaceId: string) =>
    installation.assignments.find((a) => a.workspaceId === workspaceId)?.workspaceName ?? workspaces.find((w) => w.id === workspaceId)?.name ?? workspaceId;
  const assignable = workspaces.filter((w) => !assigned.has(w.id));
  const granted = new Set(installation.grants.map((g) => g.vaultId));
  const grantable = vaults.filter((v) => assigned.has(v.workspaceId) && !granted.has(v.vaultId));
  const inactive = installation.product.status !== 'active' || installation.organization.status !== 'active';

  const assignments =
    installation.assignments.length === 0
      ? html`<p>No workspace is assigned: the product reaches none of your notes.</p>`
      : html`<ul class="listing">${installation.assignments.map(
          (a) => html`<li data-assignment="${a.workspaceId}">${a.workspaceName} <span class="muted">(assigned ${showDate(a.assignedAt)})</span>
            ${postForm('unassign', csrf, { ...own, workspace_id: a.workspaceId }, html`<button type="submit" aria-label="Unassign ${a.workspaceName}">Unassign</button>`)}</li>`,
        )}</ul>`;
  const assignForm =
    assignable.length === 0
      ? html`<p class="muted">Every workspace where you are owner or admin is assigned.</p>`
      : postForm('assign', csrf, own, html`<label for="${id}-workspace">Workspace to assign</label>
          <select id="${id}-workspace" name="workspace_id">${assignable.map((w) => html`<option value="${w.id}">${w.name}</option>`)}</select>
          <button type="submit" aria-label="Assign the workspace to ${name}">Assign</button>`);
  const grants =
    installation.grants.length === 0
      ? html`<p>No vault is granted.</p>`
      : html`<table>
          <caption class="muted">Vaults ${name} may use</caption>
          <thead><tr><th scope="col">Vault</th><th scope="col">Workspace</th><th scope="col">Access</th><th scope="col">Bound</th>
            <th scope="col"><span class="muted">Change</span></th></tr></thead>
          <tbody>${installation.grants.map((g) => grantRow(installation, g, workspaceName(g.workspaceId), csrf))}</tbody>
        </table>`;
  const grantForm =
    grantable.length === 0
      ? html`<p class="muted">${installation.assignments.length === 0 ? 'Assign a workspace first.' : 'No other vault of an assigned workspace can be granted.'}</p>`
      : postForm('grant', csrf, own, html`<label for="${id}-vault">Vault to grant</label>
          <select id="${id}-vault" name="vault_id">${grantable.map((v) => html`<option value="${v.vaultId}">${v.name} (${v.workspaceName})</option>`)}</select>
          <fieldset>
            <legend>Access</legend>
            <input type="radio" id="${id}-read" name="access" value="read" checked>
            <label class="inline" for="${id}-read">Read: list and read notes</label><br>
            <input type="radio" id="${id}-publish" name="access" value="publish">
            <label class="inline" for="${id}-publish">Read and publish: also write notes, as you, each change recorded</label>
          </fieldset>
          <button type="submit" aria-label="Grant the vault to ${name}">Grant</button>`);
  const sublimit = installation.intelligenceSublimitMicrodollars;
  return html`<section id="${id}" aria-labelledby="${id}-heading" class="installation">
    <h3 id="${id}-heading">${name}</h3>
    ${refusalAlert(refusal)}
    ${inactive
      ? html`<p class="warning" role="status">${installation.product.status !== 'active' ? 'The product was retired' : 'Its organization is suspended'}:
          its calls are refused until that changes.</p>`
      : ''}
    <dl>
      <dt>By</dt><dd>${installation.organization.name}</dd>
      <dt>Installed</dt><dd>${showDate(installation.createdAt)}</dd>
      <dt>Intelligence sublimit</dt><dd data-field="sublimit">${sublimit === null ? "none: the organization's budget alone" : `${sublimit.toLocaleString('en-US')} microdollars a month`}</dd>
    </dl>
    <h4>Workspaces</h4>
    ${assignments}
    ${assignForm}
    <h4>Vaults</h4>
    ${grants}
    ${grantForm}
    <h4>Intelligence sublimit</h4>
    ${postForm('sublimit', csrf, own, html`<label for="${id}-sublimit">Monthly sublimit of ${name} in microdollars</label>
      <input type="text" inputmode="numeric" id="${id}-sublimit" name="microdollars" value="${sublimit === null ? '' : String(sublimit)}" aria-describedby="${id}-sublimit-help">
      <p id="${id}-sublimit-help" class="muted">A lower ceiling than the organization's intelligence budget, for this installation; blank: none.</p>
      <button type="submit" aria-label="Set sublimit of ${name}">Set sublimit</button>`)}
    <h4>Uninstall</h4>
    ${postForm('uninstall', csrf, own, html`${confirmationBox(`${id}-confirm`, `I want to uninstall ${name}: every credential of it stops at once`)}
      <button type="submit" aria-label="Uninstall ${name}">Uninstall</button>`)}
  </section>`;
}
