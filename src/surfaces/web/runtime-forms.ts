import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { html, sendPage, type SafeHtml } from './layout.ts';

// What the Product Runtime pages (administration, installations, memory review) share: refusals shown inline with
// their stable code, notices chosen by key, confirmations, and the body limit of forms that carry JSON.

/** A refused form, shown inline: what the person reads, the stable code (data-code) and the field it is about. */
export interface FormRefusal {
  message: string;
  code: string;
  /** `details.field` of the refusal (a dotted path), when the domain named one. */
  field?: string | undefined;
  /** The HTTP status the code has everywhere, for the page that shows the form again. */
  status: ContentfulStatusCode;
}

/**
 * Runs a change; a refusal of the domain (a KgateError other than `internal`) is answered as a FormRefusal, so the
 * page can show it where it belongs. Anything else propagates to the error page.
 */
export async function attempt<T>(work: () => Promise<T>): Promise<{ value: T; refusal?: undefined } | { refusal: FormRefusal }> {
  try {
    return { value: await work() };
  } catch (error) {
    if (!isKgateError(error) || error.code === 'internal') throw error;
    const field = error.details?.field;
    return { refusal: { message: error.message, code: error.code, field: typeof field === 'string' ? field : undefined, status: HTTP_STATUS[error.code] } };
  }
}

/** A refusal as an alert: the message, "Nothing was changed.", and the code for tests and support. */
export function refusalAlert(refusal: FormRefusal | undefined, id?: string): SafeHtml | '' {
  if (!refusal) return '';
  return html`<p class="error" role="alert"${id ? html` id="${id}"` : ''} data-code="${refusal.code}"${refusal.field ? html` data-field="${refusal.field}"` : ''}>${refusal.message} Nothing was changed.</p>`;
}

/** The notice named by `key` in `notices`; no text from the URL ever reaches the page. */
export function noticeFrom(notices: Readonly<Record<string, string>>, key: string | undefined): SafeHtml | '' {
  const text = key === undefined || !Object.hasOwn(notices, key) ? undefined : notices[key];
  return text ? html`<p class="notice" role="status">${text}</p>` : '';
}

/** The refusal of a destructive form posted without its confirmation box ticked. */
export function requireConfirmation(form: URLSearchParams, what: string): void {
  if (form.get('confirm') !== 'yes') throw new KgateError('invalid_request', `Tick the box to confirm that you want to ${what}.`, { field: 'confirm' });
}

/** The confirmation box of a destructive form: the form posts `confirm=yes` only when it is ticked. */
export function confirmationBox(id: string, label: string): SafeHtml {
  return html`<input type="checkbox" id="${id}" name="confirm" value="yes" required>
    <label class="inline" for="${id}">${label}</label><br>`;
}

/** The most a form that carries a pasted JSON document (an experience pack, a public key) may weigh. */
const MAX_JSON_FORM_BYTES = 96 * 1024;

/** Bounds a form post that carries JSON; a larger one gets a 413 page. */
export const jsonFormBodyLimit: MiddlewareHandler<HttpEnv> = bodyLimit({
  maxSize: MAX_JSON_FORM_BYTES,
  onError: (context) => {
    // hono/body-limit types its context without our environment.
    const c = context as Context<HttpEnv>;
    c.header('Connection', 'close');
    return sendPage(c, { title: 'Form too large', body: html`<p class="error">The form is larger than this site accepts.</p>` }, 413);
  },
});

/** A JSON document pasted into a form field: blank is null; what does not parse is refused naming `field`. */
export function pastedJson(text: string, field: string, what: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new KgateError('invalid_request', `The ${what} is not valid JSON.`, { field });
  }
}
