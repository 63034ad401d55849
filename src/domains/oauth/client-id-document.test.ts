import { describe, expect, it } from 'vitest';
import { OAuthError } from './contract.ts';
import { checkClientIdUrl, createClientIdDocuments, DOCUMENT_CACHE_MAX_MS, type ClientMetadataFetch } from './client-id-document.ts';

const URL_ID = 'https://client.example/oauth/client.json';

function documentFetch(document: unknown, headers: Record<string, string> = {}, status = 200) {
  const calls: string[] = [];
  const fetch: ClientMetadataFetch = (url) => {
    calls.push(url);
    return Promise.resolve({ status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: Buffer.from(JSON.stringify(document)) });
  };
  return { fetch, calls };
}

const goodDocument = { client_id: URL_ID, client_name: 'Example', redirect_uris: ['https://client.example/cb'], grant_types: ['authorization_code', 'refresh_token'] };

async function errorOf(promise: Promise<unknown>): Promise<OAuthError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error('expected an OAuthError');
}

describe('client ID metadata document URLs', () => {
  it('accepts an https URL with a path', () => {
    expect(checkClientIdUrl(URL_ID).hostname).toBe('client.example');
  });

  it.each([
    ['http://client.example/client.json', 'not https'],
    ['https://client.example', 'no path'],
    ['https://client.example/', 'root path only'],
    ['https://client.example/client.json#x', 'fragment'],
    ['https://user@client.example/client.json', 'user info'],
    ['https://client.example/a/../client.json', 'dot segment'],
    ['https://client.example/a/%2E%2E/client.json', 'encoded dot segment'],
    ['https://client.example/./client.json', 'single dot segment'],
    ['https://client.example/client.json\n', 'newline'],
  ])('refuses %j (%s)', (url) => {
    expect(() => checkClientIdUrl(url)).toThrow(OAuthError);
  });
});

describe('createClientIdDocuments', () => {
  it('accepts a document whose client_id equals its URL, and caches it', async () => {
    const { fetch, calls } = documentFetch(goodDocument);
    const documents = createClientIdDocuments(fetch, () => 1000);
    const { client } = await documents.resolve(URL_ID);
    expect(client).toMatchObject({ clientId: URL_ID, kind: 'metadata_document', name: 'Example', redirectUris: ['https://client.example/cb'] });
    await documents.resolve(URL_ID);
    expect(calls).toEqual([URL_ID]);
  });

  it('fetches again once the cache time is over, bounded by the maximum whatever the document says', async () => {
    let now = 0;
    const { fetch, calls } = documentFetch(goodDocument, { 'cache-control': 'max-age=999999' });
    const documents = createClientIdDocuments(fetch, () => now);
    await documents.resolve(URL_ID);
    now = DOCUMENT_CACHE_MAX_MS - 1;
    await documents.resolve(URL_ID);
    expect(calls).toHaveLength(1);
    now = DOCUMENT_CACHE_MAX_MS + 1;
    await documents.resolve(URL_ID);
    expect(calls).toHaveLength(2);
  });

  it('does not cache a no-store document', async () => {
    const { fetch, calls } = documentFetch(goodDocument, { 'cache-control': 'no-store' });
    const documents = createClientIdDocuments(fetch, () => 0);
    await documents.resolve(URL_ID);
    await documents.resolve(URL_ID);
    expect(calls).toHaveLength(2);
  });

  it('shares one fetch between concurrent resolutions', async () => {
    const { fetch, calls } = documentFetch(goodDocument);
    const documents = createClientIdDocuments(fetch, () => 0);
    await Promise.all([documents.resolve(URL_ID), documents.resolve(URL_ID), documents.resolve(URL_ID)]);
    expect(calls).toHaveLength(1);
  });

  it.each([
    [{ ...goodDocument, client_id: 'https://other.example/client.json' }, 'must equal'],
    [{ ...goodDocument, client_id: undefined }, 'must equal'],
    [{ ...goodDocument, redirect_uris: ['http://client.example/cb'] }, 'not acceptable'],
    [{ ...goodDocument, token_endpoint_auth_method: 'private_key_jwt' }, 'not acceptable'],
    [{ ...goodDocument, client_secret: 'x' }, 'not acceptable'],
    [[goodDocument], 'must equal'],
  ])('refuses a bad document (%#)', async (document, message) => {
    const error = await errorOf(createClientIdDocuments(documentFetch(document).fetch, () => 0).resolve(URL_ID));
    expect(error.error).toBe('invalid_client');
    expect(error.description).toContain(message);
  });

  it('refuses other statuses, content types, invalid JSON and fetch failures, and does not cache them', async () => {
    const notFound = await errorOf(createClientIdDocuments(documentFetch(goodDocument, {}, 404).fetch, () => 0).resolve(URL_ID));
    expect(notFound.description).toContain('HTTP 404');
    const html = await errorOf(createClientIdDocuments(documentFetch(goodDocument, { 'content-type': 'text/html' }).fetch, () => 0).resolve(URL_ID));
    expect(html.description).toContain('application/json');
    const junk: ClientMetadataFetch = () => Promise.resolve({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{') });
    expect((await errorOf(createClientIdDocuments(junk, () => 0).resolve(URL_ID))).description).toContain('not valid JSON');
    let attempts = 0;
    const failing: ClientMetadataFetch = () => {
      attempts += 1;
      return Promise.reject(new Error('blocked address'));
    };
    const documents = createClientIdDocuments(failing, () => 0);
    expect((await errorOf(documents.resolve(URL_ID))).description).toContain('blocked address');
    await errorOf(documents.resolve(URL_ID));
    expect(attempts).toBe(2);
  });

  it('never fetches a URL that breaks the rules', async () => {
    const { fetch, calls } = documentFetch(goodDocument);
    await errorOf(createClientIdDocuments(fetch, () => 0).resolve('https://client.example/a/../b.json'));
    expect(calls).toEqual([]);
  });
});
