import { Hono, type Context } from 'hono';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { Trigger } from '../../domains/automation/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { hiddenInput, html, sendPage, sendRedirect } from './layout.ts';
import { jsonFormBodyLimit, noticeFrom, requireConfirmation } from './runtime-forms.ts';
import { formBodyLimit } from './session.ts';
import { automationForm, automationPage, hostedVaultsOf, type AutomationPageDependencies, type AutomationRequest } from './automation-guard.ts';
import { NEW_TRIGGER, fieldsOfTrigger, readTriggerFields, triggerForm, triggerInputOf, type TriggerChoices, type TriggerFields } from './automation-trigger-form.ts';
import { automationUrl, triggerDeleteUrl, triggerEditUrl } from './automation-urls.ts';
import { automationNav, sentence, triggerDeleteForm, triggersTable } from './automation-view.ts';

/** Notices after a change, chosen by key: no text from the URL reaches the page. */
const NOTICES: Readonly<Record<string, string>> = {
  created: 'The trigger was created.',
  saved: 'The trigger was saved.',
  enabled: 'The trigger is enabled: it fires from now on.',
  disabled: 'The trigger is disabled: it is kept and does nothing.',
  deleted: 'The trigger was deleted. Its runs stay on the Runs page.',
};

/** A refusal the person can correct in the form: bad input, a lost update, too many triggers. */
const correctable = (error: unknown): error is KgateError => isKgateError(error) && (error.code === 'invalid_request' || error.code === 'conflict');

/** A refused form: the error, and the fields as written. */
interface Refused {
  error: KgateError;
  fields?: TriggerFields | undefined;
}

const alert = (error: KgateError) => html`<p class="error" role="alert" data-code="${error.code}">${sentence(error.message)} Nothing was changed.</p>`;

/** What the form offers: the endpoints (by address) and hosted vaults (by name) of the workspace. */
async function choicesOf(deps: AutomationPageDependencies, request: AutomationRequest): Promise<TriggerChoices> {
  return { endpoints: await request.automation.listEndpoints(request.workspace.id), vaults: await hostedVaultsOf(deps, request) };
}

/** The triggers page, with the new-trigger form (filled again, with its error, after a refused post). */
async function listPage(c: Context<HttpEnv>, deps: AutomationPageDependencies, request: AutomationRequest, refused?: Refused): Promise<Response> {
  const { workspace } = request;
  const [triggers, choices] = await Promise.all([request.automation.listTriggers(workspace.id), choicesOf(deps, request)]);
  const endpoints = new Map(choices.endpoints.map((e) => [e.id, e.url]));
  const vaults = new Map(choices.vaults.map((v) => [v.mappingId, v.name]));
  const body = html`${automationNav(workspace, 'triggers')}
    ${refused ? '' : noticeFrom(NOTICES, c.req.query('done'))}
    <p>A <strong>trigger</strong> fires on events sent to <code>POST /api/dev/automation/events</code>, or on a schedule, and then delivers
      the event to webhook endpoints or proposes a note that a person approves. Each firing is a run; <code>process</code> moves runs on.</p>
    ${refused && !refused.fields ? alert(refused.error) : ''}
    ${triggersTable(workspace.id, triggers, endpoints, vaults, request.current.csrf)}
    <h2 id="new-trigger">New trigger</h2>
    ${refused?.fields ? alert(refused.error) : ''}
    ${triggerForm(automationUrl(workspace.id, 'triggers'), request.current.csrf, refused?.fields ?? NEW_TRIGGER, choices, 'new', 'Create trigger')}`;
  return sendPage(c, { title: `Triggers of ${workspace.name}`, signedIn: request.signedIn, body }, refused ? HTTP_STATUS[refused.error.code] : 200);
}

/** The trigger of an edit page, among the workspace's (any other id is `not_found`). */
async function triggerOf(request: AutomationRequest, triggerId: string): Promise<Trigger> {
  const trigger = (await request.automation.listTriggers(request.workspace.id)).find((t) => t.id === triggerId);
  if (!trigger) throw new KgateError('not_found', 'No such trigger in this workspace.');
  return trigger;
}

/** A trigger's edit page, with its delete form (filled again, with its error, after a refused post). */
async function editPage(c: Context<HttpEnv>, deps: AutomationPageDependencies, request: AutomationRequest, triggerId: string, refused?: Refused): Promise<Response> {
  const { workspace } = request;
  const trigger = await triggerOf(request, triggerId);
  const choices = await choicesOf(deps, request);
  const version = hiddenInput('expected_version', String(trigger.version));
  const body = html`${automationNav(workspace, 'triggers')}
    <p><a href="${automationUrl(workspace.id, 'triggers')}">Back to the triggers</a> · <a href="${automationUrl(workspace.id, 'runs')}?${new URLSearchParams({ trigger: trigger.id }).toString()}">Its runs</a></p>
    ${refused ? alert(refused.error) : ''}
    ${triggerForm(triggerEditUrl(workspace.id, trigger.id), request.current.csrf, refused?.fields ?? fieldsOfTrigger(trigger), choices, 'edit', 'Save changes', version)}
    <h2>Delete this trigger</h2>
    ${triggerDeleteForm(triggerDeleteUrl(workspace.id, trigger.id), request.current.csrf, trigger)}`;
  return sendPage(c, { title: `Edit trigger ${trigger.name}`, signedIn: request.signedIn, body }, refused ? HTTP_STATUS[refused.error.code] : 200);
}

/** The version the form was made from, or none (then the change is not guarded against a lost update). */
function expectedVersion(form: URLSearchParams): { expectedVersion?: number } {
  const written = form.get('expected_version') ?? '';
  return /^\d{1,9}$/.test(written) && Number(written) >= 1 ? { expectedVersion: Number(written) } : {};
}

/**
 * `/workspace/automation/{workspaceId}/triggers`: a workspace's triggers, and the forms that create, change, enable,
 * disable and delete them (CSRF-checked posts of a person whose role manages automation; a refused form is shown
 * again with why, and nothing changes).
 */
export function automationTriggerPages(deps: AutomationPageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  const base = '/workspace/automation/:workspaceId/triggers';

  app.get(base, automationPage(deps, (c, request) => listPage(c, deps, request)));

  // A propose action's content template may be up to 64 KiB: the larger form limit.
  app.post(
    base,
    jsonFormBodyLimit,
    automationForm(deps, async (c, request, form) => {
      const fields = readTriggerFields(form);
      try {
        const trigger = await request.automation.createTrigger({ workspaceId: request.workspace.id, ...triggerInputOf(fields) });
        return sendRedirect(c, `${automationUrl(request.workspace.id, 'triggers')}?done=created#trigger-${trigger.id}`);
      } catch (error) {
        if (!correctable(error)) throw error;
        return listPage(c, deps, request, { error, fields });
      }
    }),
  );

  app.get(`${base}/:triggerId/edit`, automationPage(deps, (c, request) => editPage(c, deps, request, c.req.param('triggerId') ?? '')));

  app.post(
    `${base}/:triggerId/edit`,
    jsonFormBodyLimit,
    automationForm(deps, async (c, request, form) => {
      // The trigger must be this workspace's, before anything changes (the page's permission was checked for it).
      const triggerId = (await triggerOf(request, c.req.param('triggerId') ?? '')).id;
      const fields = readTriggerFields(form);
      try {
        await request.automation.updateTrigger(triggerId, { ...triggerInputOf(fields), ...expectedVersion(form) });
        return sendRedirect(c, `${automationUrl(request.workspace.id, 'triggers')}?done=saved#trigger-${triggerId}`);
      } catch (error) {
        if (!correctable(error)) throw error;
        // Changed meanwhile: the page shows the trigger as it is now; otherwise the fields as written.
        return editPage(c, deps, request, triggerId, { error, fields: error.code === 'conflict' ? undefined : fields });
      }
    }),
  );

  app.post(
    `${base}/:triggerId/enabled`,
    formBodyLimit,
    automationForm(deps, async (c, request, form) => {
      // The trigger must be this workspace's, before anything changes (the page's permission was checked for it).
      const triggerId = (await triggerOf(request, c.req.param('triggerId') ?? '')).id;
      const enabled = form.get('enabled') === 'on';
      try {
        await request.automation.updateTrigger(triggerId, { enabled, ...expectedVersion(form) });
        return sendRedirect(c, `${automationUrl(request.workspace.id, 'triggers')}?done=${enabled ? 'enabled' : 'disabled'}#trigger-${triggerId}`);
      } catch (error) {
        if (!correctable(error)) throw error;
        return listPage(c, deps, request, { error });
      }
    }),
  );

  app.post(
    `${base}/:triggerId/delete`,
    formBodyLimit,
    automationForm(deps, async (c, request, form) => {
      // The trigger must be this workspace's, before anything changes (the page's permission was checked for it).
      const triggerId = (await triggerOf(request, c.req.param('triggerId') ?? '')).id;
      try {
        requireConfirmation(form, 'delete the trigger');
        await request.automation.deleteTrigger(triggerId);
        return sendRedirect(c, `${automationUrl(request.workspace.id, 'triggers')}?done=deleted`);
      } catch (error) {
        if (!correctable(error)) throw error;
        return editPage(c, deps, request, triggerId, { error });
      }
    }),
  );

  return app;
}
