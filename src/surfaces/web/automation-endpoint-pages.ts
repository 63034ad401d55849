import { Hono, type Context } from 'hono';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import { MAX_ENDPOINTS_PER_WORKSPACE } from '../../domains/automation/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { hiddenInput, html, sendPage, sendRedirect, type SafeHtml } from './layout.ts';
import { noticeFrom, requireConfirmation } from './runtime-forms.ts';
import { formBodyLimit } from './session.ts';
import { automationForm, automationPage, type AutomationPageDependencies, type AutomationRequest } from './automation-guard.ts';
import { automationUrl } from './automation-urls.ts';
import { automationNav, endpointsTable, freshSecretSection, sentence, type FreshEndpointSecret } from './automation-view.ts';

/** Notices after a change, chosen by key: no text from the URL reaches the page. */
const NOTICES: Readonly<Record<string, string>> = {
  deleted: 'The endpoint was deleted. Its pending deliveries were dropped; its executions stay.',
};

/** The new-endpoint form's fields as written. */
interface EndpointFields {
  url: string;
  description: string;
  eventTypes: string;
}

const NEW_ENDPOINT: EndpointFields = { url: '', description: '', eventTypes: '' };

/** A refusal the person can correct: bad input, a refused address, a workspace full of endpoints. */
const correctable = (error: unknown): error is KgateError =>
  isKgateError(error) && (error.code === 'invalid_request' || error.code === 'conflict' || error.code === 'endpoint_url_refused');

/** What the endpoints page shows besides the list: a secret just made, or a refused form. */
interface EndpointsPageState {
  fresh?: FreshEndpointSecret;
  refused?: { error: KgateError; fields?: EndpointFields };
}

function endpointForm(action: string, csrf: string, fields: EndpointFields): SafeHtml {
  return html`<form method="post" action="${action}" class="endpoint">
    ${hiddenInput('csrf', csrf)}
    <label for="endpoint-url">Address (https)</label>
    <input type="text" id="endpoint-url" name="url" value="${fields.url}" maxlength="2000" required autocomplete="off" inputmode="url" placeholder="https://hooks.example.com/kgate">
    <label for="endpoint-description">Description (optional)</label>
    <input type="text" id="endpoint-description" name="description" value="${fields.description}" maxlength="500" autocomplete="off">
    <label for="endpoint-types">Event types it takes</label>
    <p class="muted" id="endpoint-types-help">Types such as <code>proposal.executed</code> or prefixes such as <code>form.*</code>, separated by spaces,
      commas or lines. Empty: every type.</p>
    <textarea id="endpoint-types" name="event_types" rows="2" aria-describedby="endpoint-types-help">${fields.eventTypes}</textarea>
    <button type="submit">Add endpoint</button>
  </form>`;
}

/** The endpoints page; the answer to a create or a rotation carries the secret, this once. */
async function endpointsPage(c: Context<HttpEnv>, request: AutomationRequest, state: EndpointsPageState = {}): Promise<Response> {
  const { workspace } = request;
  const endpoints = await request.automation.listEndpoints(workspace.id);
  const { refused } = state;
  const alert = refused ? html`<p class="error" role="alert" data-code="${refused.error.code}">${sentence(refused.error.message)} Nothing was changed.</p>` : '';
  const body = html`${automationNav(workspace, 'endpoints')}
    ${state.fresh ? freshSecretSection(state.fresh) : refused ? '' : noticeFrom(NOTICES, c.req.query('done'))}
    <p>kgate delivers events to these addresses, signed with each endpoint's secret (Standard Webhooks), and retries a failed
      delivery with backoff. An endpoint only receives: it grants no other action. At most ${MAX_ENDPOINTS_PER_WORKSPACE} per workspace.</p>
    ${refused && !refused.fields ? alert : ''}
    ${endpointsTable(workspace.id, endpoints, request.current.csrf)}
    <h2 id="new-endpoint">Add an endpoint</h2>
    ${refused?.fields ? alert : ''}
    ${endpointForm(automationUrl(workspace.id, 'endpoints'), request.current.csrf, refused?.fields ?? NEW_ENDPOINT)}`;
  // sendPage sends `Cache-Control: no-store` with every page (layout.ts): the answer holding a secret is never cached.
  return sendPage(c, { title: `Webhook endpoints of ${workspace.name}`, signedIn: request.signedIn, body }, refused ? HTTP_STATUS[refused.error.code] : 200);
}

/** The endpoint a form names, among the page's workspace's (any other id is `not_found`, before anything changes). */
async function endpointOf(request: AutomationRequest, endpointId: string): Promise<string> {
  const endpoints = await request.automation.listEndpoints(request.workspace.id);
  if (!endpoints.some((e) => e.id === endpointId)) throw new KgateError('not_found', 'No such endpoint in this workspace.');
  return endpointId;
}

/**
 * `/workspace/automation/{workspaceId}/endpoints`: a workspace's webhook endpoints; add one (its secret shown on the
 * answer to the form, once: never in a redirect, never again), rotate its secret (the new one shown once, and until
 * when the previous one still signs) and delete one, after a confirmation.
 */
export function automationEndpointPages(deps: AutomationPageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  const base = '/workspace/automation/:workspaceId/endpoints';

  app.get(base, automationPage(deps, (c, request) => endpointsPage(c, request)));

  app.post(
    base,
    formBodyLimit,
    automationForm(deps, async (c, request, form) => {
      const fields: EndpointFields = { url: (form.get('url') ?? '').trim(), description: form.get('description') ?? '', eventTypes: form.get('event_types') ?? '' };
      const eventTypes = fields.eventTypes.split(/[\s,]+/).filter((t) => t !== '');
      try {
        const made = await request.automation.createEndpoint({
          workspaceId: request.workspace.id,
          url: fields.url,
          ...(fields.description.trim() === '' ? {} : { description: fields.description.trim() }),
          ...(eventTypes.length === 0 ? {} : { eventTypes }),
        });
        return endpointsPage(c, request, { fresh: { ...made, rotated: false } });
      } catch (error) {
        if (!correctable(error)) throw error;
        return endpointsPage(c, request, { refused: { error, fields } });
      }
    }),
  );

  app.post(
    `${base}/:endpointId/rotate-secret`,
    formBodyLimit,
    automationForm(deps, async (c, request) => {
      const endpointId = await endpointOf(request, c.req.param('endpointId') ?? '');
      const made = await request.automation.rotateSecret(endpointId);
      return endpointsPage(c, request, { fresh: { ...made, rotated: true } });
    }),
  );

  app.post(
    `${base}/:endpointId/delete`,
    formBodyLimit,
    automationForm(deps, async (c, request, form) => {
      const endpointId = await endpointOf(request, c.req.param('endpointId') ?? '');
      try {
        requireConfirmation(form, 'delete the endpoint');
      } catch (error) {
        if (!correctable(error)) throw error;
        return endpointsPage(c, request, { refused: { error } });
      }
      await request.automation.deleteEndpoint(endpointId);
      return sendRedirect(c, `${automationUrl(request.workspace.id, 'endpoints')}?done=deleted`);
    }),
  );

  return app;
}
