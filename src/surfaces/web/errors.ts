import type { Context, Handler } from 'hono';
import { isKgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { html, sendPage, type SignedIn } from './layout.ts';

/** Titles of the error pages, by what the person can do about it. */
const TITLES: Partial<Record<string, string>> = {
  400: 'Something is wrong with this request',
  401: 'Please sign in',
  403: 'Not allowed',
  404: 'Not found',
  409: 'That did not work',
  429: 'Too many attempts',
  503: 'Temporarily unavailable',
};

/**
 * Renders a domain error as a page with the status its code has everywhere (http/problem.ts). Unexpected errors
 * are logged and shown as a 500 page with the request id; never a stack trace.
 */
export function errorPage(c: Context<HttpEnv>, error: unknown, signedIn?: SignedIn): Response {
  if (isKgateError(error)) {
    const status = HTTP_STATUS[error.code];
    const retryAfter = error.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
    return sendPage(c, { title: TITLES[status] ?? 'That did not work', body: html`<p class="error">${error.message}</p>`, signedIn }, status);
  }
  const err = error instanceof Error ? error : new Error(String(error));
  c.get('log')?.().error({ err: { name: err.name, message: err.message, stack: err.stack } }, 'unhandled error on a web page');
  return sendPage(
    c,
    {
      title: 'Something went wrong',
      body: html`<p class="error">An unexpected error occurred. If it happens again, tell the operator this request id: <code>${c.get('requestId') ?? 'unknown'}</code>.</p>`,
    },
    500,
  );
}

/** Wraps a page handler so that any error becomes an error page instead of the API's problem JSON. */
export function page(handler: (c: Context<HttpEnv>) => Promise<Response>): Handler<HttpEnv> {
  return async (c) => {
    try {
      return await handler(c);
    } catch (error) {
      return errorPage(c, error);
    }
  };
}
