import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { CustomerInstallation, RuntimeAdminService } from '../../domains/runtime/admin/index.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import type { WorkspacesService } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage, sendRedirect } from './layout.ts';
import { MEMORY_PAGE, PRODUCTS_PAGE, installableTable, installationSection, type GrantableVault, type InstallFormRefusal } from './product-install-view.ts';
import { attempt, noticeFrom, refusalAlert, requireConfirmation, type FormRefusal } from './runtime-forms.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';

/** What the customer's products page needs. */
export interface ProductInstallPagesDependencies extends AccountPageDependencies {
  runtimeAdmin: Pick<
    RuntimeAdminService,
    | 'listInstallableProducts'
    | 'listMyInstallations'
    | 'install'
    | 'uninstall'
    | 'assignWorkspace'
    | 'unassignWorkspace'
    | 'grantVault'
    | 'revokeVault'
    | 'setInstallationSublimit'
  >;
  workspaces: Pick<WorkspacesService, 'listWorkspaces'>;
  vaults: Pick<VaultsService, 'listAccessibleMappings'>;
}

// Notices after a redirect are chosen by key, so no text from the URL ever reaches the page.
const NOTICES: Readonly<Record<string, string>> = {
  installed: 'The product is installed. Assign it a workspace and grant it vaults; its organization issues its credentials.',
  uninstalled: 'The product was uninstalled: every credential of it stopped at once.',
  assigned: 'The workspace was assigned.',
  unassigned: 'The workspace was unassigned, and every grant of its vaults removed.',
  granted: 'The vault grant was saved.',
  revoked: 'The vault grant was revoked.',
  sublimit: 'The intelligence sublimit was saved.',
};

/** Owners and admins assign workspaces and grant their vaults (docs/runtime.md). */
const manages = (role: string) => role === 'owner' || role === 'admin';

async function productsPage(
  c: Context<HttpEnv>,
  deps: ProductInstallPagesDependencies,
  current: CurrentSession,
  refused?: InstallFormRefusal,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const accountId = current.session.accountId;
  const [installable, mine, workspaces, mappings] = await Promise.all([
    deps.runtimeAdmin.listInstallableProducts(),
    deps.runtimeAdmin.listMyInstallations(accountId),
    deps.workspaces.listWorkspaces(accountId),
    deps.vaults.listAccessibleMappings(accountId),
  ]);
  const manageable = workspaces.filter((w) => manages(w.role));
  const vaults = new Map<string, GrantableVault>();
  for (const { mapping, role } of mappings) {
    const workspace = manageable.find((w) => w.id === mapping.workspaceId);
    if (workspace && manages(role) && !vaults.has(mapping.vaultId)) {
      vaults.set(mapping.vaultId, { vaultId: mapping.vaultId, name: mapping.name, workspaceId: workspace.id, workspaceName: workspace.name });
    }
  }
  const refusalAt = (at: string): FormRefusal | undefined => (refused?.at === at ? refused.refusal : undefined);
  // A refusal about an installation the page does not show (not the account's, or gone) stands at the top.
  const orphan = refused && refused.at !== 'install' && !mine.items.some((i) => i.id === refused.at) ? refused.refusal : undefined;
  const installed = new Set(mine.items.map((i) => i.product.slug));
  return sendPage(
    c,
    {
      title: 'Products',
      signedIn: signedInAs(current),
      body: html`${noticeFrom(NOTICES, c.req.query('notice'))}
        ${refusalAlert(orphan)}
        <p>Products built on kgate work with your notes only as far as you let them: an installation reaches the workspaces you
          assign and, in them, the vaults you grant, to read or to publish. What a product changes is recorded as yours, naming
          the product. Products may propose shared memory; nothing of it is trusted until a person accepts it on
          <a href="${MEMORY_PAGE}">Shared memory</a>.</p>
        <section aria-labelledby="installable-heading">
          <h2 id="installable-heading">Install a product</h2>
          ${refusalAlert(refusalAt('install'))}
          ${installableTable(installable.items, installed, current.csrf, installable.truncated)}
        </section>
        <section aria-labelledby="installed-heading">
          <h2 id="installed-heading">Your installations</h2>
          ${mine.items.length === 0
            ? html`<p>You have installed no product.</p>`
            : mine.items.map((item: CustomerInstallation) => installationSection(item, manageable, [...vaults.values()], current.csrf, refusalAt(item.id)))}
        </section>`,
    },
    status,
  );
}

/**
 * `/account/products`: the products a customer can install, and the customer's installations with their workspace
 * assignments, vault grants (read or publish), intelligence sublimit and Uninstall (confirmed). Every form is
 * CSRF-checked; the domain decides what the account may assign and grant (owner or admin of the workspace, now) and
 * every refusal is shown inline with its code, nothing changed.
 */
export function productInstallPages(deps: ProductInstallPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    PRODUCTS_PAGE,
    accountPage(deps, (c, current) => productsPage(c, deps, current)),
  );

  /** A form of an installation: `change` runs as the account; a refusal shows the page again at that installation. */
  const installationForm = (action: string, notice: string, change: (accountId: string, installationId: string, form: URLSearchParams) => Promise<unknown>) =>
    app.post(
      `${PRODUCTS_PAGE}/${action}`,
      formBodyLimit,
      accountForm(deps, PRODUCTS_PAGE, async (c, current, form) => {
        const installationId = form.get('installation_id') ?? '';
        const done = await attempt(() => change(current.session.accountId, installationId, form));
        if (done.refusal) return productsPage(c, deps, current, { at: installationId, refusal: done.refusal }, done.refusal.status);
        return sendRedirect(c, `${PRODUCTS_PAGE}?notice=${notice}#installation-${installationId}`);
      }),
    );

  app.post(
    `${PRODUCTS_PAGE}/install`,
    formBodyLimit,
    accountForm(deps, PRODUCTS_PAGE, async (c, current, form) => {
      const done = await attempt(() => deps.runtimeAdmin.install(current.session.accountId, form.get('product_slug') ?? ''));
      if (done.refusal) return productsPage(c, deps, current, { at: 'install', refusal: done.refusal }, done.refusal.status);
      return sendRedirect(c, `${PRODUCTS_PAGE}?notice=installed#installation-${done.value.id}`);
    }),
  );

  installationForm('uninstall', 'uninstalled', (accountId, installationId, form) => {
    requireConfirmation(form, 'uninstall the product');
    return deps.runtimeAdmin.uninstall(accountId, installationId);
  });
  installationForm('assign', 'assigned', (accountId, installationId, form) => deps.runtimeAdmin.assignWorkspace(accountId, installationId, form.get('workspace_id') ?? ''));
  installationForm('unassign', 'unassigned', (accountId, installationId, form) => deps.runtimeAdmin.unassignWorkspace(accountId, installationId, form.get('workspace_id') ?? ''));
  installationForm('grant', 'granted', (accountId, installationId, form) =>
    // The domain checks the access word; a missing one is passed as empty and refused there.
    deps.runtimeAdmin.grantVault(accountId, installationId, form.get('vault_id') ?? '', (form.get('access') ?? '') as 'read'),
  );
  installationForm('revoke-grant', 'revoked', (accountId, installationId, form) => deps.runtimeAdmin.revokeVault(accountId, installationId, form.get('vault_id') ?? ''));
  installationForm('sublimit', 'sublimit', (accountId, installationId, form) => {
    const text = (form.get('microdollars') ?? '').trim();
    // Blank: none. Anything but digits reaches the domain as NaN, which it refuses naming the field.
    return deps.runtimeAdmin.setInstallationSublimit(accountId, installationId, text === '' ? null : /^\d+$/.test(text) ? Number(text) : Number.NaN);
  });

  return app;
}
