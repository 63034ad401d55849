import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { HttpEnv } from '../http/context.ts';
import { escapeHtml, html } from './layout.ts';
import { clearSessionCookie, safeReturnTo, sessionCookieName, setSessionCookie } from './session.ts';

describe('web session helpers', () => {
  const cookieOf = async (base: string, clear = false) => {
    const app = new Hono<HttpEnv>();
    app.get('/', (c) => {
      if (clear) clearSessionCookie(c, () => base);
      else setSessionCookie(c, () => base, 'kgs_value');
      return c.text('ok');
    });
    return (await app.request('/')).headers.get('set-cookie');
  };

  it('uses a __Host- Secure cookie under https and a plain one under http', async () => {
    expect(sessionCookieName(() => 'https://kgate.example')).toBe('__Host-kgate_session');
    expect(await cookieOf('https://kgate.example')).toBe('__Host-kgate_session=kgs_value; Max-Age=43200; Path=/; HttpOnly; Secure; SameSite=Lax');
    expect(await cookieOf('http://localhost:8787')).toBe('kgate_session=kgs_value; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax');
    expect(await cookieOf('https://kgate.example', true)).toBe('__Host-kgate_session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
  });

  it.each([
    ['/account/tokens', '/account/tokens'],
    ['/oauth/authorize?client_id=a&state=b%20c', '/oauth/authorize?client_id=a&state=b%20c'],
    ['/a/../account', '/account'],
    ['//evil.example/x', '/account'],
    ['/\\evil.example', '/account'],
    ['/\t/evil.example', '/account'],
    ['/%2F/evil.example', '/%2F/evil.example'],
    ['https://evil.example/', '/account'],
    ['evil.example', '/account'],
    ['/caf\u00e9', '/account'],
    [null, '/account'],
  ])('return_to %j -> %j', (input, expected) => {
    expect(safeReturnTo(input)).toBe(expected);
  });

  it('escapes interpolated text but not nested markup', () => {
    const name = `<a href="x" onclick='y'>&</a>`;
    expect(html`<p title="${name}">${name}${html`<br>`}${[1, ' ', null, false, undefined]}</p>`.markup).toBe(
      `<p title="${escapeHtml(name)}">&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;<br>1 </p>`,
    );
  });
});
