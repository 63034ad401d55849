import type { ProductInstallation, RuntimeProduct } from '../../domains/runtime/admin/index.ts';
import type { CredentialInfo, PrincipalInfo } from '../../domains/runtime/credentials/index.ts';
import { RUNTIME_SCOPES } from '../../domains/runtime/index.ts';
import { copyButton, hiddenInput, html, showDate, type SafeHtml } from './layout.ts';
import { refusalAlert, type FormRefusal } from './runtime-forms.ts';
import { installationPath, productPath } from './runtime-admin-view.ts';

// An installation's service principals and their client credentials, as its product organization's admins manage them.

/** What each runtime scope lets a principal do, in words. */
const SCOPE_WORDS: Readonly<Record<string, string>> = {
  'notes.publish': 'publish notes to vaults granted for publishing',
  'intelligence.execute': 'run intelligence (metered)',
  'media.write': 'store private media',
  'media.read': 'read private media',
  'connections.manage': 'manage delegated provider connections',
  'connections.execute': 'use delegated provider connections',
};

/** A principal with its credentials, as the page lists it. */
export interface PrincipalWithCredentials {
  principal: PrincipalInfo;
  credentials: CredentialInfo[];
}

/** A new client secret, shown on the answer to the form that made it, and never again. */
export interface FreshSecret {
  principal: PrincipalInfo;
  secret: string;
}

/** A refusal and the form it belongs to: `create` (the create form), or a principal's id (that principal's forms). */
export interface PrincipalFormRefusal {
  at: string;
  refusal: FormRefusal;
}

function revokeForm(action: string, field: string, id: string, csrf: string, label: string): SafeHtml {
  return html`<form method="post" action="${action}">
    ${hiddenInput('csrf', csrf)}${hiddenInput(field, id)}
    <button type="submit" aria-label="${label}">Revoke</button>
  </form>`;
}

function credentialRow(base: string, credential: CredentialInfo, principal: PrincipalInfo, csrf: string): SafeHtml {
  const what = credential.kind === 'client_secret' ? html`secret <code>${credential.display ?? ''}</code>` : html`public key <code>${credential.keyId ?? ''}</code>`;
  const active = credential.status === 'active';
  return html`<tr data-credential="${credential.id}">
    <th scope="row">${what}</th>
    <td data-field="status">${credential.status}</td>
    <td>${showDate(credential.createdAt)}</td>
    <td>${showDate(credential.lastUsedAt)}</td>
    <td>${active ? revokeForm(`${base}/credentials/revoke`, 'credential_id', credential.id, csrf, `Revoke the ${credential.kind === 'client_secret' ? `secret ${credential.display ?? ''}` : `key ${credential.keyId ?? ''}`} of ${principal.name}`) : ''}</td>
  </tr>`;
}

function principalSection(base: string, item: PrincipalWithCredentials, csrf: string, refusal: FormRefusal | undefined): SafeHtml {
  const { principal, credentials } = item;
  const id = `principal-${principal.id}`;
  const active = principal.status === 'active';
  const table =
    credentials.length === 0
      ? html`<p>No credentials yet.</p>`
      : html`<table>
          <caption class="muted">Credentials of ${principal.name}, newest first (a secret is never shown again)</caption>
          <thead><tr><th scope="col">Credential</th><th scope="col">Status</th><th scope="col">Added</th><th scope="col">Last used</th>
            <th scope="col"><span class="muted">Action</span></th></tr></thead>
          <tbody>${credentials.map((credential) => credentialRow(base, credential, principal, csrf))}</tbody>
        </table>`;
  const forms = active
    ? html`<form method="post" action="${base}/secrets">
        ${hiddenInput('csrf', csrf)}${hiddenInput('principal_id', principal.id)}
        <button type="submit" aria-label="Add a client secret to ${principal.name}">Add a client secret</button>
      </form>
      <form method="post" action="${base}/keys">
        ${hiddenInput('csrf', csrf)}${hiddenInput('principal_id', principal.id)}
        <label for="${id}-jwk">Public key of ${principal.name} (a JWK, pasted as JSON)</label>
        <textarea id="${id}-jwk" name="jwk" rows="4" spellcheck="false" required aria-describedby="${id}-jwk-help"></textarea>
        <p id="${id}-jwk-help" class="muted">RSA of at least 2048 bits, EC P-256 or Ed25519; public members only. The product signs
          its client assertions (private_key_jwt) with the private key, which never comes here.</p>
        <label for="${id}-kid">Key id (optional)</label>
        <input type="text" id="${id}-kid" name="key_id" maxlength="200" aria-describedby="${id}-kid-help">
        <p id="${id}-kid-help" class="muted">Blank: the JWK's own kid, else its RFC 7638 thumbprint.</p>
        <button type="submit" aria-label="Add public key to ${principal.name}">Add public key</button>
      </form>
      ${revokeForm(`${base}/principals/revoke`, 'principal_id', principal.id, csrf, `Revoke the principal ${principal.name} and all its tokens`)}`
    : html`<p>Revoked ${showDate(principal.revokedAt)}: its credentials and tokens no longer work.</p>`;
  return html`<section id="${id}" aria-labelledby="${id}-heading" class="principal">
    <h3 id="${id}-heading">${principal.name}</h3>
    ${refusalAlert(refusal)}
    <dl>
      <dt>Client id</dt><dd><code data-field="client-id">${principal.id}</code> ${copyButton(principal.id, `Copy the client id of ${principal.name}`)}</dd>
      <dt>Scopes</dt><dd>${principal.scopes.join(', ')}</dd>
      <dt>Status</dt><dd data-field="status">${principal.status}</dd>
      <dt>Created</dt><dd>${showDate(principal.createdAt)}</dd>
    </dl>
    ${table}
    ${forms}
  </section>`;
}

function freshSecretSection(fresh: FreshSecret): SafeHtml {
  return html`<section class="notice" aria-labelledby="new-secret-heading">
    <h2 id="new-secret-heading">Client secret of ${fresh.principal.name} created</h2>
    <p><strong>Copy it now: it is shown this once and never again.</strong> kgate keeps only its SHA-256; if it is lost, add
      another and revoke this one.</p>
    <code class="secret" id="new-secret">${fresh.secret}</code> ${copyButton(fresh.secret, 'Copy the client secret')}
    <p class="muted">The product sends it with its client id <code>${fresh.principal.id}</code> to
      <code>POST /api/product/v1/oauth/token</code> (client_secret_post or client_secret_basic). Keep it in the product's
      secret store, never in its code.</p>
  </section>`;
}

/** An installation's page: its principals with their credentials, and the form that creates a principal. */
export function installationBody(
  product: RuntimeProduct,
  installation: ProductInstallation,
  principals: readonly PrincipalWithCredentials[],
  csrf: string,
  options: { fresh?: FreshSecret | undefined; refusal?: PrincipalFormRefusal | undefined },
): SafeHtml {
  const base = installationPath(product.id, installation.id);
  const refusalAt = (at: string) => (options.refusal?.at === at ? options.refusal.refusal : undefined);
  const create =
    installation.status === 'active' && product.status === 'active'
      ? html`<h2 id="create-heading">Create a service principal</h2>
        ${refusalAlert(refusalAt('create'))}
        <form method="post" action="${base}/principals">
          ${hiddenInput('csrf', csrf)}
          <label for="principal-name">Name</label>
          <input type="text" id="principal-name" name="name" required maxlength="200" placeholder="e.g. production backend">
          <fieldset>
            <legend>Scopes</legend>
            ${RUNTIME_SCOPES.map(
              (scope) => html`<input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}">
                <label class="inline" for="scope-${scope}"><code>${scope}</code>: ${SCOPE_WORDS[scope] ?? scope}</label><br>`,
            )}
          </fieldset>
          <button type="submit">Create principal</button>
        </form>`
      : html`<p class="warning" role="status">This installation is ${installation.status === 'active' ? 'of a retired product' : 'uninstalled'}:
          its credentials no longer work and no principal can be added.</p>`;
  return html`${options.fresh ? freshSecretSection(options.fresh) : ''}
    <p><a href="${productPath(product.id)}">Back to ${product.name}</a></p>
    <dl>
      <dt>Customer</dt><dd>${installation.customer.email}</dd>
      <dt>Installation</dt><dd><code>${installation.id}</code></dd>
      <dt>Status</dt><dd data-field="status">${installation.status}</dd>
      <dt>Installed</dt><dd>${showDate(installation.createdAt)}</dd>
    </dl>
    <p>A service principal is how the product's backend signs in for this customer: its client id and a credential (a client
      secret, or a public key for private_key_jwt) get 15-minute access tokens. Rotate a credential by adding a new one, moving
      the product to it and revoking the old one. Revoking a principal stops all its tokens at once.</p>
    ${create}
    <h2>Service principals</h2>
    ${principals.length === 0 ? html`<p>None yet.</p>` : principals.map((item) => principalSection(base, item, csrf, refusalAt(item.principal.id)))}`;
}
