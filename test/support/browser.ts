import { CookieJar } from './html-forms.ts';

/**
 * A tiny browser for server-rendered pages: `fetch` with manual redirects through the cookie jar of
 * html-forms.ts (values, deletions and paths; other attributes are checked by the tests themselves).
 */
export interface PageBrowser {
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Posts a URL-encoded form, as a browser does. */
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** The jar's cookies by name. */
  cookies: Pick<CookieJar, 'get' | 'has'>;
}

/** A new browser with an empty jar for the server at `baseUrl`. */
export function pageBrowser(baseUrl: string): PageBrowser {
  const jar = new CookieJar();
  return {
    cookies: jar,
    get: (path, headers = {}) => jar.fetch(new URL(path, baseUrl), { method: 'GET', headers }),
    post: (path, fields, headers = {}) =>
      jar.fetch(new URL(path, baseUrl), {
        method: 'POST',
        body: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      }),
  };
}

/** The value of the hidden input `name` in a page (the first one). */
export function hiddenField(page: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(page);
  if (!match) throw new Error(`no hidden field ${name} in the page`);
  return match[1]!;
}

/** The Set-Cookie line for `name` in a response. */
export function setCookieLine(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

/** Signs in through the real form; returns the final response of the POST (a 303 on success). */
export async function signInThroughForm(browser: PageBrowser, email: string, password: string, returnTo?: string): Promise<Response> {
  const query = returnTo === undefined ? '' : `?${new URLSearchParams({ return_to: returnTo }).toString()}`;
  const form = await (await browser.get(`/signin${query}`)).text();
  return browser.post(`/signin${query}`, { csrf: hiddenField(form, 'csrf'), email, password });
}
