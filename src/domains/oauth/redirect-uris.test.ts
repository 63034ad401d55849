import { describe, expect, it } from 'vitest';
import { OAuthError } from './contract.ts';
import { isLoopbackRedirect, redirectHostOf, validateRedirectUri, withParameters } from './redirect-uris.ts';

describe('validateRedirectUri', () => {
  it.each([
    'https://client.example/callback',
    'https://client.example/cb?x=1',
    'http://localhost:33418/callback',
    'http://127.0.0.1/callback',
    'http://[::1]:8080/cb',
    'com.example.app:/oauth2redirect',
  ])('accepts %s unchanged', (uri) => {
    expect(validateRedirectUri(uri)).toBe(uri);
  });

  it.each([
    ['javascript:alert(1)', 'javascript'],
    ['data:text/html,hi', 'data'],
    ['file:///etc/passwd', 'file'],
    ['http://client.example/cb', 'plain http'],
    ['https://client.example/cb#frag', 'fragment'],
    ['https://user:pw@client.example/cb', 'user info'],
    ['https://client.example/cb ', 'trailing space'],
    ['https://client.example/c\r\nb', 'CRLF'],
    ['https://client.example/c\u0000b', 'NUL'],
    ['https://client.example\\@evil.example/', 'backslash'],
    ['/relative/callback', 'relative'],
    ['myapp:/cb', 'single-word private scheme'],
    ['', 'empty'],
  ])('refuses %j (%s)', (uri) => {
    expect(() => validateRedirectUri(uri)).toThrow(OAuthError);
    try {
      validateRedirectUri(uri);
    } catch (error) {
      expect((error as OAuthError).error).toBe('invalid_redirect_uri');
    }
  });

  it('refuses non-strings and very long URIs', () => {
    expect(() => validateRedirectUri(42)).toThrow(OAuthError);
    expect(() => validateRedirectUri(`https://client.example/${'a'.repeat(2000)}`)).toThrow(OAuthError);
  });
});

describe('redirect helpers', () => {
  it('recognizes loopback redirects', () => {
    expect(isLoopbackRedirect('http://localhost:3000/cb')).toBe(true);
    expect(isLoopbackRedirect('http://127.0.0.1/cb')).toBe(true);
    expect(isLoopbackRedirect('https://client.example/cb')).toBe(false);
    expect(isLoopbackRedirect('com.example.app:/cb')).toBe(false);
  });

  it('names the host, or the scheme of a native app', () => {
    expect(redirectHostOf('https://client.example:8443/cb')).toBe('client.example:8443');
    expect(redirectHostOf('com.example.app:/cb')).toBe('com.example.app');
  });

  it('keeps the redirect URI query and appends parameters', () => {
    const url = new URL(withParameters('https://client.example/cb?tenant=a', { code: 'c', state: 's&t', iss: 'https://kg', skipped: undefined }));
    expect(url.searchParams.get('tenant')).toBe('a');
    expect(url.searchParams.get('code')).toBe('c');
    expect(url.searchParams.get('state')).toBe('s&t');
    expect(url.searchParams.has('skipped')).toBe(false);
  });
});
