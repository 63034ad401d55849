/**
 * A tiny browser for server-rendered pages: `fetch` with manual redirects and a cookie jar that keeps what
 * `Set-Cookie` says (values and deletions; attributes are checked by the tests themselves).
 */
export interface PageBrowser {
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Posts a URL-encoded form, as a browser does. */
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** The jar: cookie name -> value. */
  cookies: Map<string, string>;
}

/** A new browser with an empty jar for the server at `baseUrl`. */
export function pageBrowser(baseUrl: string): PageBrowser {
  const cookies = new Map<string, string>();
  const send = async (path: string, init: RequestInit & { headers: Record<string, string> }) => {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, baseUrl), {
      ...init,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...init.headers },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      if (value === '' || /max-age=0\b/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  };
  return {
    cookies,
    get: (path, headers = {}) => send(path, { method: 'GET', headers }),
    post: (path, fields, headers = {}) =>
      send(path, {
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
