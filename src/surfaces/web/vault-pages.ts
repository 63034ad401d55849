import { Hono } from 'hono';
import { ApprovalPolicySchema, type ApprovalPolicy, type Mapping, type VaultsService } from '../../domains/vaults/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { PROVIDER_NAMES, html, sendPage, sendRedirect, type SafeHtml } from './layout.ts';
import { formBodyLimit } from './session.ts';

/** What the vaults page needs. */
export interface VaultPagesDependencies extends AccountPageDependencies {
  vaults: VaultsService;
}

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

const POLICY_WORDS: Readonly<Record<ApprovalPolicy, string>> = {
  open: 'Open: applies with the current hashes',
  'preview-first': 'Preview first: every apply must match a preview',
  'people-approve': 'People approve: agents only propose',
};

function policyForm(mapping: Mapping, csrf: string): SafeHtml {
  const id = `policy-${mapping.id}`;
  return html`<form method="post" action="/account/vaults/approval-policy">
    <input type="hidden" name="csrf" value="${csrf}">
    <input type="hidden" name="mapping_id" value="${mapping.id}">
    <select id="${id}" name="policy" aria-label="Approval policy for ${mapping.name}">${ApprovalPolicySchema.options.map(
      (p) => html`<option value="${p}"${p === mapping.approvalPolicy ? html` selected` : html``}>${POLICY_WORDS[p]}</option>`,
    )}</select>
    <button type="submit" aria-label="Save the approval policy for ${mapping.name}">Save</button>
  </form>`;
}

function mappingRow(mapping: Mapping, csrf: string): SafeHtml {
  const on = mapping.allowMcpNoteChanges;
  return html`<tr>
    <th scope="row">${mapping.name}</th>
    <td><code>${mapping.id}</code></td>
    <td>${PROVIDER_NAMES[mapping.provider]}</td>
    <td>${yesNo(mapping.readOnly)}</td>
    <td>${yesNo(mapping.pullOnly)}</td>
    <td>${yesNo(mapping.deviceEncrypted)}</td>
    <td><strong>${on ? 'On' : 'Off'}</strong>
      <form method="post" action="/account/vaults/mcp-note-changes">
        <input type="hidden" name="csrf" value="${csrf}">
        <input type="hidden" name="mapping_id" value="${mapping.id}">
        <input type="hidden" name="allow" value="${on ? 'off' : 'on'}">
        <button type="submit" aria-label="${on ? 'Turn off' : 'Turn on'} hosted MCP note changes for ${mapping.name}">${on ? 'Turn off' : 'Turn on'}</button>
      </form></td>
    <td>${policyForm(mapping, csrf)}</td>
  </tr>`;
}

/** `/account/vaults`: the vaults the account owns, their flags, and the owner's hosted MCP note-change switch. */
export function vaultPages(deps: VaultPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/account/vaults',
    accountPage(deps, async (c, current) => {
      const mappings = await deps.vaults.listOwnedMappings(current.session.accountId);
      const table =
        mappings.length === 0
          ? html`<p>You own no vaults.</p>`
          : html`<table>
              <caption class="muted">Vaults you own</caption>
              <thead><tr><th scope="col">Vault</th><th scope="col">Mapping id</th><th scope="col">Where notes live</th><th scope="col">Read-only</th>
                <th scope="col">Pull-only</th><th scope="col">Device-encrypted</th>
                <th scope="col">Allow hosted MCP note changes</th><th scope="col">Approval policy</th></tr></thead>
              <tbody>${mappings.map((mapping) => mappingRow(mapping, current.csrf))}</tbody>
            </table>`;
      return sendPage(c, {
        title: 'Vaults',
        signedIn: signedInAs(current),
        body: html`<p><strong>Allow hosted MCP note changes</strong>: when on, AI applications connected over hosted MCP may
            propose and apply note changes (new notes, edits, deletions to the trash) in that vault; when off they can
            only read it. Read-only and pull-only vaults refuse changes either way.</p>
          <p><strong>Approval policy</strong>: <em>Open</em> applies a change sent with the current hashes (previews are
            advised). <em>Preview first</em> refuses an apply that does not match a preview of exactly that change, made
            with the same credential within 30 minutes. <em>People approve</em> also stops agents from applying: they
            propose, and a person approves each proposal on the vault's Proposals page.</p>
          <p>Scripts and agents name a vault by its <strong>mapping id</strong>: pass it as <code>mappingId</code> (or in the
            <code>X-Service-Mapping</code> header). A script that lost it can list them again with
            <code>GET /api/dev/mappings</code>; an agent calls <code>list_vaults</code>.</p>
          ${table}`,
      });
    }),
  );

  app.post(
    '/account/vaults/mcp-note-changes',
    formBodyLimit,
    accountForm(deps, '/account/vaults', async (c, current, form) => {
      const allow = form.get('allow');
      if (allow !== 'on' && allow !== 'off') {
        return sendPage(
          c,
          { title: 'Vaults', signedIn: signedInAs(current), body: html`<p class="error">The form did not say whether to turn the switch on or off.</p>` },
          400,
        );
      }
      await deps.vaults.setMcpNoteChanges(current.session.accountId, form.get('mapping_id') ?? '', allow === 'on');
      return sendRedirect(c, '/account/vaults');
    }),
  );

  app.post(
    '/account/vaults/approval-policy',
    formBodyLimit,
    accountForm(deps, '/account/vaults', async (c, current, form) => {
      const policy = ApprovalPolicySchema.safeParse(form.get('policy'));
      if (!policy.success) {
        return sendPage(c, { title: 'Vaults', signedIn: signedInAs(current), body: html`<p class="error">Choose one of the three approval policies.</p>` }, 400);
      }
      await deps.vaults.setApprovalPolicy(current.session.accountId, form.get('mapping_id') ?? '', policy.data);
      return sendRedirect(c, '/account/vaults');
    }),
  );

  return app;
}
