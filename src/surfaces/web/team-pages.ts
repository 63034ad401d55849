import { Hono, type Context } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import { EmailSchema } from '../../domains/accounts/index.ts';
import { INVITABLE_ROLES, type Member, type MembershipService, type Workspace, type WorkspaceRole, type WorkspacesService } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { copyButton, hiddenInput, html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import type { Mailer } from '../../net/mail.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';

/** What the team pages need. */
export interface TeamPagesDependencies extends AccountPageDependencies {
  workspaces: Pick<WorkspacesService, 'listWorkspaces'>;
  membership: MembershipService;
  /** Sends the invitation link by e-mail when an SMTP server is configured (KGATE_SMTP_URL). */
  mailer?: Mailer | undefined;
}

const TEAM = '/workspace/team';
const INVITATIONS = '/invitations';

/** An invitation just made: its link, shown once, and whether it was e-mailed. */
interface MadeInvitation {
  workspaceId: string;
  link: string;
  to?: string;
  mailed?: boolean;
}

/** The text of an invitation e-mail. */
function invitationMail(from: string, workspace: string, role: WorkspaceRole, link: string, expires: Date): string {
  return [
    `${from} invites you to the kgate workspace "${workspace}" as ${ROLE_WORDS[role]}.`,
    '',
    `Open this link and sign in with your kgate account to join (it works once, until ${expires.toISOString().slice(0, 16).replace('T', ' ')} UTC):`,
    '',
    link,
    '',
    'If you did not expect this, ignore this e-mail.',
  ].join('\n');
}

/** The link an invited person opens (its secret in the query: docs/workspaces.md). */
export function invitationLink(baseUrl: string, token: string): string {
  return new URL(`${INVITATIONS}?${new URLSearchParams({ token }).toString()}`, baseUrl).toString();
}
const ROLES: readonly WorkspaceRole[] = ['owner', 'admin', 'editor', 'viewer'];
const ROLE_WORDS: Readonly<Record<WorkspaceRole, string>> = {
  owner: 'owner: everything, ownership included',
  admin: 'admin: reads, writes, manages vaults and members',
  editor: 'editor: reads and changes notes',
  viewer: 'viewer: reads only',
};
const manages = (role: WorkspaceRole) => role === 'owner' || role === 'admin';

function roleOptions(selected: WorkspaceRole, roles: readonly WorkspaceRole[]): SafeHtml {
  return html`${roles.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${role}</option>`)}`;
}

function memberRow(workspace: Workspace, member: Member, me: string, csrf: string): SafeHtml {
  const self = member.accountId === me;
  const change =
    manages(workspace.role) && !self
      ? html`<form method="post" action="${TEAM}/role">${hiddenInput('csrf', csrf)}${hiddenInput('workspace_id', workspace.id)}${hiddenInput('account_id', member.accountId)}
          <label class="inline" for="role-${member.accountId}">Role of ${member.email}</label>
          <select id="role-${member.accountId}" name="role">${roleOptions(member.role, workspace.role === 'owner' ? ROLES : INVITABLE_ROLES)}</select>
          <button type="submit">Change role</button></form>
        <form method="post" action="${TEAM}/remove">${hiddenInput('csrf', csrf)}${hiddenInput('workspace_id', workspace.id)}${hiddenInput('account_id', member.accountId)}
          <button type="submit" aria-label="Remove ${member.email}">Remove</button></form>`
      : self
        ? html`<form method="post" action="${TEAM}/remove">${hiddenInput('csrf', csrf)}${hiddenInput('workspace_id', workspace.id)}${hiddenInput('account_id', member.accountId)}
            <button type="submit">Leave this workspace</button></form>`
        : '';
  return html`<tr><th scope="row">${member.email}${self ? ' (you)' : ''}</th><td>${member.role}</td><td>${showDate(member.joinedAt)}</td><td>${change}</td></tr>`;
}

async function workspaceSection(deps: TeamPagesDependencies, workspace: Workspace, me: string, csrf: string, made?: MadeInvitation): Promise<SafeHtml> {
  const members = await deps.membership.listMembers(me, workspace.id);
  const invitations = manages(workspace.role) ? await deps.membership.listInvitations(me, workspace.id) : [];
  const invite = manages(workspace.role)
    ? html`<h3>Invite someone</h3>
        ${made?.workspaceId === workspace.id
          ? html`<p class="notice">Send this link to the person you invite. It works once, for 7 days, and is shown only now:</p>
              <p><code class="secret">${made.link}</code> ${copyButton(made.link, 'Copy the invitation link')}</p>
              ${made.mailed === undefined ? '' : made.mailed ? html`<p class="notice">It was also e-mailed to ${made.to}.</p>` : html`<p class="warning">It could not be e-mailed to ${made.to}; send it yourself.</p>`}`
          : ''}
        <form method="post" action="${TEAM}/invite">${hiddenInput('csrf', csrf)}${hiddenInput('workspace_id', workspace.id)}
          <label for="invite-role-${workspace.id}">Role</label>
          <select id="invite-role-${workspace.id}" name="role">${INVITABLE_ROLES.map((role) => html`<option value="${role}"${role === 'viewer' ? html` selected` : ''}>${ROLE_WORDS[role]}</option>`)}</select>
          ${deps.mailer
            ? html`<label for="invite-email-${workspace.id}">E-mail it to (optional)</label>
                <input type="email" id="invite-email-${workspace.id}" name="email" maxlength="254" autocomplete="off">`
            : ''}
          <button type="submit">Make an invitation link</button>
        </form>
        ${invitations.length === 0
          ? ''
          : html`<table><caption class="muted">Open invitations</caption>
              <thead><tr><th scope="col">Role</th><th scope="col">Made</th><th scope="col">Expires</th><th scope="col">Revoke</th></tr></thead>
              <tbody>${invitations.map(
                (invitation) => html`<tr><td>${invitation.role}</td><td>${showDate(invitation.createdAt)}</td><td>${showDate(invitation.expiresAt)}</td>
                  <td><form method="post" action="${TEAM}/revoke">${hiddenInput('csrf', csrf)}${hiddenInput('workspace_id', workspace.id)}${hiddenInput('invitation_id', invitation.id)}
                    <button type="submit" aria-label="Revoke the ${invitation.role} invitation made ${invitation.createdAt.toISOString().slice(0, 16)}">Revoke</button></form></td></tr>`,
              )}</tbody></table>`}`
    : '';
  return html`<section aria-labelledby="ws-${workspace.id}"><h2 id="ws-${workspace.id}">${workspace.name}</h2>
    <p class="muted">Your role: ${ROLE_WORDS[workspace.role]}.</p>
    <table><caption class="muted">Members</caption>
      <thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col">Change</th></tr></thead>
      <tbody>${members.map((member) => memberRow(workspace, member, me, csrf))}</tbody></table>
    ${invite}</section>`;
}

/**
 * `/workspace/team`: the people of each workspace the person belongs to, their roles, and invitation links; and
 * `/invitations/{secret}`, where an invited person joins. Every change goes through the membership service, which
 * checks the person's current role and keeps one owner at least (docs/workspaces.md).
 */
export function teamPages(deps: TeamPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  async function page(c: Context<HttpEnv>, current: CurrentSession, made?: MadeInvitation): Promise<Response> {
    const me = current.session.accountId;
    const workspaces = await deps.workspaces.listWorkspaces(me);
    const sections = await Promise.all(workspaces.map((workspace) => workspaceSection(deps, workspace, me, current.csrf, made)));
    return sendPage(c, {
      title: 'Team',
      signedIn: signedInAs(current),
      body: html`<p>Roles apply everywhere at once: in these pages, to access tokens and to connected applications. A viewer reads and
          never writes; a removed member's tokens and applications lose the workspace at once.</p>${sections}`,
    });
  }

  app.get(TEAM, accountPage(deps, (c, current) => page(c, current)));

  app.post(
    `${TEAM}/invite`,
    formBodyLimit,
    accountForm(deps, TEAM, async (c, current, form) => {
      const workspaceId = form.get('workspace_id') ?? '';
      const to = (form.get('email') ?? '').trim();
      if (to !== '' && !EmailSchema.safeParse(to).success) throw new KgateError('invalid_request', 'That is not an e-mail address.', { field: 'email' });
      const { invitation, token } = await deps.membership.invite(current.session.accountId, workspaceId, (form.get('role') ?? '') as WorkspaceRole);
      const link = invitationLink(deps.baseUrl(), token);
      if (!deps.mailer || to === '') return page(c, current, { workspaceId, link });
      const workspace = (await deps.workspaces.listWorkspaces(current.session.accountId)).find((w) => w.id === workspaceId);
      const mailed = await deps.mailer
        .send({ to, subject: `You are invited to ${workspace?.name ?? 'a workspace'} on kgate`, text: invitationMail(current.session.email, workspace?.name ?? '', invitation.role, link, invitation.expiresAt) })
        .then(
          () => true,
          (error: unknown) => {
            // The link is still shown; the log says why the mail failed, without the link (it is a secret).
            c.get('log')?.().warn({ err: { message: error instanceof Error ? error.message : String(error) } }, 'invitation e-mail not sent');
            return false;
          },
        );
      return page(c, current, { workspaceId, link, to, mailed });
    }),
  );

  app.post(
    `${TEAM}/revoke`,
    formBodyLimit,
    accountForm(deps, TEAM, async (c, current, form) => {
      await deps.membership.revokeInvitation(current.session.accountId, form.get('workspace_id') ?? '', form.get('invitation_id') ?? '');
      return sendRedirect(c, TEAM);
    }),
  );

  app.post(
    `${TEAM}/role`,
    formBodyLimit,
    accountForm(deps, TEAM, async (c, current, form) => {
      await deps.membership.setRole(current.session.accountId, form.get('workspace_id') ?? '', form.get('account_id') ?? '', (form.get('role') ?? '') as WorkspaceRole);
      return sendRedirect(c, TEAM);
    }),
  );

  app.post(
    `${TEAM}/remove`,
    formBodyLimit,
    accountForm(deps, TEAM, async (c, current, form) => {
      await deps.membership.removeMember(current.session.accountId, form.get('workspace_id') ?? '', form.get('account_id') ?? '');
      return sendRedirect(c, form.get('account_id') === current.session.accountId ? '/workspace' : TEAM);
    }),
  );

  // The secret travels in the query (GET) and the form (POST), never in the path: the request log keeps paths
  // without their query, so no log line holds a usable invitation.
  app.get(
    INVITATIONS,
    accountPage(deps, async (c, current) => {
      const token = c.req.query('token') ?? '';
      const invitation = await deps.membership.previewInvitation(token);
      return sendPage(c, {
        title: `Join ${invitation.workspaceName}`,
        signedIn: signedInAs(current),
        body: html`<p>You are invited to the workspace <strong>${invitation.workspaceName}</strong> as ${ROLE_WORDS[invitation.role]}.
            The invitation works once, until ${showDate(invitation.expiresAt)}.</p>
          <form method="post" action="${INVITATIONS}/accept">${hiddenInput('csrf', current.csrf)}${hiddenInput('token', token)}<button type="submit">Join ${invitation.workspaceName}</button></form>`,
      });
    }),
  );

  app.post(
    `${INVITATIONS}/accept`,
    formBodyLimit,
    accountForm(deps, '/workspace', async (c, current, form) => {
      await deps.membership.acceptInvitation(current.session.accountId, form.get('token') ?? '');
      return sendRedirect(c, '/workspace');
    }),
  );

  return app;
}
