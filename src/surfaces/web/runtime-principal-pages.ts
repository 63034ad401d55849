import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ProductInstallation, RuntimeProduct } from '../../domains/runtime/admin/index.ts';
import type { RuntimeCredentialsService } from '../../domains/runtime/credentials/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs } from './guards.ts';
import { html, sendPage, sendRedirect } from './layout.ts';
import { adminProduct, type RuntimeAdminPagesDependencies } from './runtime-admin-pages.ts';
import { RUNTIME_ADMIN_PAGE, installationPath } from './runtime-admin-view.ts';
import { attempt, jsonFormBodyLimit, noticeFrom, pastedJson } from './runtime-forms.ts';
import { installationBody, type FreshSecret, type PrincipalFormRefusal, type PrincipalWithCredentials } from './runtime-principal-view.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';

/** What the installation pages need: the product pages' administration, and the credentials service. */
export interface RuntimePrincipalPagesDependencies extends RuntimeAdminPagesDependencies {
  runtimeCredentials: Pick<
    RuntimeCredentialsService,
    'createPrincipal' | 'listPrincipals' | 'revokePrincipal' | 'addClientSecret' | 'addPublicKey' | 'listCredentials' | 'revokeCredential'
  >;
}

// Notices after a redirect are chosen by key, so no text from the URL ever reaches the page.
const NOTICES: Readonly<Record<string, string>> = {
  principal_created: 'The service principal was created. Add a client secret or a public key for it.',
  principal_revoked: 'The service principal was revoked: its credentials and tokens no longer work.',
  key_added: 'The public key was added.',
  credential_revoked: 'The credential was revoked, and every token issued from it.',
};

/** An installation as its page shows it: the product, the installation, its principals with their credentials. */
interface InstallationView {
  product: RuntimeProduct;
  installation: ProductInstallation;
  principals: PrincipalWithCredentials[];
}

/** Reads the installation of a product the account administers; `not_found` for anything else. */
async function loadInstallation(deps: RuntimePrincipalPagesDependencies, accountId: string, productId: string, installationId: string): Promise<InstallationView> {
  const { product } = await adminProduct(deps, accountId, productId);
  const installation = (await deps.runtimeAdmin.listInstallationsOfProduct(accountId, product.id)).items.find((item) => item.id === installationId);
  if (!installation) throw new KgateError('not_found', 'The installation does not exist.');
  const principals = await Promise.all(
    (await deps.runtimeCredentials.listPrincipals(accountId, installation.id)).map(async (principal) => ({
      principal,
      credentials: await deps.runtimeCredentials.listCredentials(accountId, principal.id),
    })),
  );
  return { product, installation, principals };
}

function sendInstallationPage(
  c: Context<HttpEnv>,
  current: CurrentSession,
  view: InstallationView,
  options: { fresh?: FreshSecret; refusal?: PrincipalFormRefusal } = {},
  status: ContentfulStatusCode = 200,
): Response {
  return sendPage(
    c,
    {
      title: `${view.product.name} for ${view.installation.customer.email}`,
      signedIn: signedInAs(current),
      body: html`${noticeFrom(NOTICES, c.req.query('notice'))}
        ${installationBody(view.product, view.installation, view.principals, current.csrf, options)}`,
    },
    status,
  );
}

/** The principal `principalId` of the page's installation; the page acts only on what it shows. */
function principalOn(view: InstallationView, principalId: string): PrincipalWithCredentials {
  const found = view.principals.find((item) => item.principal.id === principalId);
  if (!found) throw new KgateError('not_found', 'The service principal does not exist.');
  return found;
}

/**
 * `/account/runtime/products/{productId}/installations/{installationId}`: an installation's service principals (create
 * with a name and scopes; revoke) and their credentials (add a client secret, shown once on the answer to the form and
 * never again; add a public JWK; revoke). For admins of the product's organization only; every form is CSRF-checked
 * and acts only on the principals and credentials of the installation it names.
 */
export function runtimePrincipalPages(deps: RuntimePrincipalPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  const PAGE = `${RUNTIME_ADMIN_PAGE}/products/:productId/installations/:installationId`;

  /** A form of the installation page: its view read first (the account must administer it), then `handler`. */
  const installationForm = (handler: (c: Context<HttpEnv>, current: CurrentSession, form: URLSearchParams, view: InstallationView) => Promise<Response>) =>
    accountForm(deps, RUNTIME_ADMIN_PAGE, async (c, current, form) =>
      handler(c, current, form, await loadInstallation(deps, current.session.accountId, c.req.param('productId') ?? '', c.req.param('installationId') ?? '')),
    );
  const back = (view: InstallationView, notice: string, anchor = '') =>
    `${installationPath(view.product.id, view.installation.id)}?notice=${notice}${anchor}`;
  const reload = (current: CurrentSession, view: InstallationView) =>
    loadInstallation(deps, current.session.accountId, view.product.id, view.installation.id);

  app.get(
    PAGE,
    accountPage(deps, async (c, current) =>
      sendInstallationPage(c, current, await loadInstallation(deps, current.session.accountId, c.req.param('productId') ?? '', c.req.param('installationId') ?? '')),
    ),
  );

  app.post(
    `${PAGE}/principals`,
    formBodyLimit,
    installationForm(async (c, current, form, view) => {
      const input = { name: form.get('name') ?? '', scopes: form.getAll('scopes') };
      const done = await attempt(() => deps.runtimeCredentials.createPrincipal(current.session.accountId, view.installation.id, input));
      if (done.refusal) return sendInstallationPage(c, current, view, { refusal: { at: 'create', refusal: done.refusal } }, done.refusal.status);
      return sendRedirect(c, back(view, 'principal_created', `#principal-${done.value.id}`));
    }),
  );

  app.post(
    `${PAGE}/principals/revoke`,
    formBodyLimit,
    installationForm(async (c, current, form, view) => {
      const { principal } = principalOn(view, form.get('principal_id') ?? '');
      await deps.runtimeCredentials.revokePrincipal(current.session.accountId, principal.id);
      return sendRedirect(c, back(view, 'principal_revoked', `#principal-${principal.id}`));
    }),
  );

  app.post(
    `${PAGE}/secrets`,
    formBodyLimit,
    installationForm(async (c, current, form, view) => {
      const { principal } = principalOn(view, form.get('principal_id') ?? '');
      const done = await attempt(() => deps.runtimeCredentials.addClientSecret(current.session.accountId, principal.id));
      if (done.refusal) return sendInstallationPage(c, current, view, { refusal: { at: principal.id, refusal: done.refusal } }, done.refusal.status);
      // The answer to this post is the one page that ever holds the secret (pages are never cached); a reload of the
      // page's address shows the credential by its last four characters only.
      return sendInstallationPage(c, current, await reload(current, view), { fresh: { principal, secret: done.value.secret } });
    }),
  );

  app.post(
    `${PAGE}/keys`,
    jsonFormBodyLimit,
    installationForm(async (c, current, form, view) => {
      const { principal } = principalOn(view, form.get('principal_id') ?? '');
      const done = await attempt(async () => {
        const jwk = pastedJson(form.get('jwk') ?? '', 'jwk', 'public key');
        if (jwk === null) throw new KgateError('invalid_request', 'Paste the public key as a JWK (JSON).', { field: 'jwk' });
        const keyId = (form.get('key_id') ?? '').trim();
        return deps.runtimeCredentials.addPublicKey(current.session.accountId, principal.id, keyId === '' ? { jwk } : { jwk, keyId });
      });
      if (done.refusal) return sendInstallationPage(c, current, view, { refusal: { at: principal.id, refusal: done.refusal } }, done.refusal.status);
      return sendRedirect(c, back(view, 'key_added', `#principal-${principal.id}`));
    }),
  );

  app.post(
    `${PAGE}/credentials/revoke`,
    formBodyLimit,
    installationForm(async (c, current, form, view) => {
      const credentialId = form.get('credential_id') ?? '';
      const owner = view.principals.find((item) => item.credentials.some((credential) => credential.id === credentialId));
      if (!owner) throw new KgateError('not_found', 'The credential does not exist.');
      await deps.runtimeCredentials.revokeCredential(current.session.accountId, credentialId);
      return sendRedirect(c, back(view, 'credential_revoked', `#principal-${owner.principal.id}`));
    }),
  );

  return app;
}
