/**
 * A browser's side of an HTML site, for tests: a cookie jar that plays fetch without following redirects, and an
 * HTML form filler that finds fields by their labels and buttons by their text. Nothing here knows kgate's pages.
 */

// ---------------------------------------------------------------------------------------------------------------
// Cookie jar
// ---------------------------------------------------------------------------------------------------------------

interface StoredCookie {
  value: string;
  path: string;
}

/** A browser's cookies for one site (host-only cookies; the tests talk to one gateway per jar). */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  /** Stores the `Set-Cookie` headers of a response; `Max-Age=0` (or a past `Expires`) deletes. */
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair!.indexOf('=');
      if (eq <= 0) continue;
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      let path = '/';
      let expired = false;
      for (const attribute of attributes) {
        const [key, raw = ''] = attribute.split('=');
        const lower = key!.toLowerCase();
        if (lower === 'path' && raw.startsWith('/')) path = raw;
        if (lower === 'max-age' && Number(raw) <= 0) expired = true;
        if (lower === 'expires' && Date.parse(raw) < Date.now()) expired = true;
      }
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, { value, path });
    }
  }

  /** The `Cookie` header for a request to `url`, or undefined. */
  headerFor(url: URL): string | undefined {
    // RFC 6265 s5.1.4 path matching.
    const sent = [...this.cookies].filter(
      ([, cookie]) => url.pathname === cookie.path || url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`),
    );
    return sent.length === 0 ? undefined : sent.map(([name, cookie]) => `${name}=${cookie.value}`).join('; ');
  }

  /** A cookie's value, or undefined. */
  get(name: string): string | undefined {
    return this.cookies.get(name)?.value;
  }

  /** True when the jar holds the cookie. */
  has(name: string): boolean {
    return this.cookies.has(name);
  }

  /** fetch with this jar: sends its cookies, stores the answer's, never follows redirects. */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.headerFor(target);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    this.store(response);
    return response;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// HTML forms
// ---------------------------------------------------------------------------------------------------------------

/** Decodes the HTML character references our pages (or any escaping) may produce in text and attributes. */
export function decodeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[lower]!;
  });
}

function attributesOf(tag: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  const inner = tag.replace(/^<\s*[a-z]+/i, '').replace(/\/?>$/, '');
  for (const match of inner.matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    attributes[match[1]!.toLowerCase()] = decodeHtml(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

const textOf = (markup: string) => decodeHtml(markup.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();

/** One input of a form. */
export interface FormInput {
  name: string;
  type: string;
  value: string;
  id: string | undefined;
  /** The text of its `<label>` (by `for`, or a label wrapping it), if any. */
  label: string | undefined;
}

/** One submit button of a form. */
export interface FormButton {
  text: string;
  name: string | undefined;
  value: string;
}

/** A parsed `<form>`. */
export interface HtmlForm {
  action: string;
  method: string;
  inputs: FormInput[];
  buttons: FormButton[];
}

/** Every `<form>` of a page, with its inputs (labelled) and submit buttons. */
export function parseForms(html: string): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const match of html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/gi)) {
    const open = /^<form\b[^>]*>/i.exec(match[0])![0];
    const body = match[1]!;
    const formAttributes = attributesOf(open);
    const labels = new Map<string, string>();
    const wrapped: { text: string; inner: string }[] = [];
    for (const label of body.matchAll(/<label\b[^>]*>([\s\S]*?)<\/label>/gi)) {
      const attributes = attributesOf(/^<label\b[^>]*>/i.exec(label[0])![0]);
      if (attributes.for) labels.set(attributes.for, textOf(label[1]!));
      else wrapped.push({ text: textOf(label[1]!), inner: label[1]! });
    }
    const inputs: FormInput[] = [];
    for (const tag of body.matchAll(/<(input|textarea|select)\b[^>]*>/gi)) {
      const attributes = attributesOf(tag[0]);
      if (!attributes.name) continue;
      const type = tag[1]!.toLowerCase() === 'input' ? (attributes.type ?? 'text').toLowerCase() : tag[1]!.toLowerCase();
      if (type === 'submit' || type === 'button' || type === 'image' || type === 'reset') continue;
      if ((type === 'checkbox' || type === 'radio') && !('checked' in attributes)) continue;
      const id = attributes.id;
      const label = (id !== undefined ? labels.get(id) : undefined) ?? wrapped.find((w) => w.inner.includes(tag[0]))?.text;
      inputs.push({ name: attributes.name, type, value: attributes.value ?? '', id, label });
    }
    const buttons: FormButton[] = [];
    for (const button of body.matchAll(/<button\b[^>]*>([\s\S]*?)<\/button>/gi)) {
      const attributes = attributesOf(/^<button\b[^>]*>/i.exec(button[0])![0]);
      if ((attributes.type ?? 'submit').toLowerCase() !== 'submit') continue;
      buttons.push({ text: textOf(button[1]!), name: attributes.name, value: attributes.value ?? '' });
    }
    for (const tag of body.matchAll(/<input\b[^>]*>/gi)) {
      const attributes = attributesOf(tag[0]);
      if ((attributes.type ?? '').toLowerCase() === 'submit') {
        buttons.push({ text: attributes.value ?? 'Submit', name: attributes.name, value: attributes.value ?? '' });
      }
    }
    forms.push({ action: formAttributes.action ?? '', method: (formAttributes.method ?? 'get').toLowerCase(), inputs, buttons });
  }
  return forms;
}

/** The form that has a submit button with this text (case-insensitive); throws naming what the page had. */
export function formWithButton(html: string, buttonText: string): { form: HtmlForm; button: FormButton } {
  for (const form of parseForms(html)) {
    const button = form.buttons.find((b) => b.text.toLowerCase() === buttonText.toLowerCase());
    if (button) return { form, button };
  }
  const seen = parseForms(html).flatMap((form) => form.buttons.map((b) => b.text));
  throw new Error(`No form with a "${buttonText}" button on the page (buttons: ${JSON.stringify(seen)}):\n${html.slice(0, 2000)}`);
}

/**
 * Submits a form as a browser does: its hidden and prefilled fields, `fields` filled by label text (or by name),
 * and the button's name/value when it has a name. Sends the page's Origin, as browsers do on a POST.
 */
export async function submitForm(
  jar: CookieJar,
  pageUrl: URL,
  chosen: { form: HtmlForm; button: FormButton },
  fields: Readonly<Record<string, string>> = {},
): Promise<Response> {
  const { form, button } = chosen;
  const values = new URLSearchParams();
  const filled = new Set<string>();
  for (const input of form.inputs) {
    const key = Object.keys(fields).find(
      (wanted) => input.label?.toLowerCase() === wanted.toLowerCase() || input.name.toLowerCase() === wanted.toLowerCase(),
    );
    if (key !== undefined) filled.add(key);
    values.append(input.name, key !== undefined ? fields[key]! : input.value);
  }
  const missing = Object.keys(fields).filter((key) => !filled.has(key));
  if (missing.length > 0) throw new Error(`The form has no field labelled ${missing.join(', ')} (inputs: ${JSON.stringify(form.inputs)})`);
  if (button.name) values.append(button.name, button.value);
  const action = new URL(form.action || pageUrl.href, pageUrl);
  if (form.method === 'get') {
    action.search = values.toString();
    return jar.fetch(action);
  }
  return jar.fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: pageUrl.origin },
    body: values.toString(),
  });
}
