import type { Context } from 'hono';
import type { ContentfulStatusCode, RedirectStatusCode } from 'hono/utils/http-status';
import type { HttpEnv } from '../http/context.ts';
import { WEBMCP_ADAPTER, webmcpPolyfill } from '../webmcp/adapter-script.ts';
import { WORKSPACE_SCRIPT_ASSET } from './workspace-script.ts';

/**
 * Markup that is safe to insert as is: built only by `html`, which escapes every interpolated value that is not
 * itself SafeHtml. Pages are assembled from these and nothing else, so no dynamic text reaches a page unescaped.
 */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** A value `html` accepts: text (escaped), numbers, safe markup, lists of these; null, undefined and false are left out. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map((item: HtmlValue) => render(item)).join('');
  if (value === null || value === undefined || value === false) return '';
  // Strings, numbers and `true` (which nobody means to print, but escaping it is harmless).
  return escapeHtml(String(value));
}

/**
 * The one way to write markup: a tagged template that escapes every interpolated value. (hono/html does the same
 * but types its result as possibly a Promise, which every page would then have to await.)
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let markup = strings[0]!;
  values.forEach((value, index) => {
    markup += render(value) + strings[index + 1]!;
  });
  return new SafeHtml(markup);
}

/**
 * Headers of every page and redirect. The CSP allows scripts only from our own origin, never inline (the one
 * workspace script, workspace-script.ts; pages work without it), and only inline styles;
 * framing is refused (clickjacking of the consent page). There is deliberately no `form-action`: Chrome applies it
 * to the redirect that follows the consent form, which goes to the client's redirect URI on another origin.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  // Not no-referrer: with it Chromium sends `Origin: null` on our own form posts, which the Origin check must refuse.
  // same-origin keeps the URL (an authorization request's query) from every other site, the client's included.
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

function applyPageHeaders(c: Context<HttpEnv>): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.header(name, value);
}

/** Who is signed in, for the page header: the address and the CSRF token of the sign-out form. */
export interface SignedIn {
  email: string;
  csrf: string;
}

/** What a page shows. */
export interface PageContent {
  /** The document title and the page's one `<h1>`. */
  title: string;
  body: SafeHtml;
  /** Present on pages of a signed-in account: adds the account navigation and the sign-out button. */
  signedIn?: SignedIn | undefined;
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
  header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .75rem 1.5rem; background: #fff; border-bottom: 1px solid #ddd; }
  header nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
  header form { margin-left: auto; }
  main { max-width: 52rem; margin: 1.5rem auto; padding: 0 1.5rem; }
  table { border-collapse: collapse; width: 100%; margin: 1rem 0; background: #fff; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
  label { display: block; margin-top: .75rem; font-weight: 600; }
  input[type=text], input[type=email], input[type=password] { font: inherit; padding: .4rem; width: 100%; max-width: 24rem; box-sizing: border-box; }
  button { font: inherit; padding: .35rem .9rem; margin-top: .75rem; cursor: pointer; }
  td button, td form { margin: 0; display: inline; }
  .error { border-left: 4px solid #b00020; background: #fdecee; padding: .5rem 1rem; }
  .warning { border-left: 4px solid #b26a00; background: #fff4e0; padding: .5rem 1rem; }
  .notice { border-left: 4px solid #1b6e20; background: #eaf6ea; padding: .5rem 1rem; }
  code.secret { display: block; padding: .5rem; background: #fff; border: 1px solid #999; word-break: break-all; }
  .muted { color: #555; }
  nav.tabs ul, nav.crumbs ol { display: flex; flex-wrap: wrap; gap: 1rem; list-style: none; padding: 0; margin: 0 0 1rem; }
  nav.tabs a[aria-current=page] { font-weight: 700; }
  nav.crumbs li + li::before { content: "/ "; color: #555; }
  ul.listing { list-style: none; padding: 0; }
  ul.listing li { padding: .25rem 0; border-bottom: 1px solid #eee; }
  ol.hits li { margin-bottom: .75rem; }
  article.note { background: #fff; border: 1px solid #ddd; padding: .5rem 1.25rem; overflow-wrap: anywhere; }
  article.note pre, pre.diff, pre.outline { overflow-x: auto; background: #f3f3f3; padding: .5rem; }
  a.unresolved { color: #8a1c1c; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  dt { font-weight: 600; }
  mark { background: #ffe48a; }
  label.inline { display: inline; font-weight: normal; }
  textarea, select { font: inherit; padding: .4rem; width: 100%; max-width: 36rem; box-sizing: border-box; }
  ul.records { list-style: none; padding: 0; }
  ul.records > li { background: #fff; border: 1px solid #ddd; padding: .25rem 1rem; margin-bottom: .75rem; }
  ul.records > li.candidate { border-left: 4px solid #b26a00; }
  ul.records p { margin: .4rem 0; }
  .badge { display: inline-block; padding: 0 .4rem; border: 1px solid #555; border-radius: .25rem; font-size: .875rem; font-weight: 600; }
  .badge.candidate, .badge.overdue { color: #7a3d00; border-color: #7a3d00; background: #fff4e0; }
  .badge.confirmed { color: #1b5e20; border-color: #1b5e20; background: #eaf6ea; }
  .badge.rejected, .badge.superseded { color: #555; }
  tr.overdue td { background: #fff4e0; }
  form.review input[type=text] { font: inherit; padding: .3rem; width: 100%; max-width: 24rem; box-sizing: border-box; }
  article.note :target, details:target { outline: 3px solid #b26a00; background: #fff4e0; scroll-margin-top: 1rem; }
  a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
`;

function shell(page: PageContent): string {
  const nav = page.signedIn
    ? html`<nav aria-label="Account">
          <ul>
            <li><a href="/workspace">Workspace</a></li>
            <li><a href="/workspace/team">Team</a></li>
            <li><a href="/workspace/automation">Automation</a></li>
            <li><a href="/account">Account</a></li>
            <li><a href="/account/connections">Connected applications</a></li>
            <li><a href="/account/tokens">Access tokens</a></li>
            <li><a href="/account/vaults">Vaults</a></li>
            <li><a href="/account/vaults/remote">Remote vaults</a></li>
            <li><a href="/account/providers">Provider connections</a></li>
            <li><a href="/account/products">Products</a></li>
            <li><a href="/account/products/rubrics">Rubric drafts</a></li>
            <li><a href="/account/intelligence">Published intelligence</a></li>
          </ul>
        </nav>
        <form method="post" action="/signout">
          <span class="muted">Signed in as ${page.signedIn.email}</span>
          <input type="hidden" name="csrf" value="${page.signedIn.csrf}">
          <button type="submit">Sign out</button>
        </form>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · kgate</title>
<style>${new SafeHtml(STYLE)}</style>
<script src="${WORKSPACE_SCRIPT_ASSET.path}" defer></script>
${page.signedIn ? html`<script src="${webmcpPolyfill().path}" defer></script>
<script src="${WEBMCP_ADAPTER.path}" defer></script>` : ''}
</head>
<body>
<header><strong>kgate</strong>${nav}</header>
<main>
<h1>${page.title}</h1>
${page.body}
</main>
</body>
</html>
`.markup;
}

/** Sends a page with the security headers of every page. */
export function sendPage(c: Context<HttpEnv>, page: PageContent, status: ContentfulStatusCode = 200): Response {
  applyPageHeaders(c);
  return c.html(shell(page), status);
}

/** Redirects with the security headers of every page (303 after a form, 302 for OAuth error redirects). */
export function sendRedirect(c: Context<HttpEnv>, location: string, status: RedirectStatusCode = 303): Response {
  applyPageHeaders(c);
  return c.redirect(location, status);
}

/** A date as people read it, in UTC, inside a machine-readable `<time>`. */
export function showDate(date: Date | null, never = 'never'): SafeHtml {
  if (!date) return html`${never}`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** A hidden form field. */
export function hiddenInput(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

/** A copy button for a value: hidden until the workspace script shows it, since without script it cannot copy. */
export function copyButton(value: string, label: string): SafeHtml {
  return html`<button type="button" class="copy" data-copy="${value}" aria-label="${label}" hidden>Copy</button>`;
}

/** How pages name where a vault's notes live. */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  hosted: 'Hosted by kgate',
  drive: 'Google Drive',
  dropbox: 'Dropbox',
  github: 'GitHub',
};
