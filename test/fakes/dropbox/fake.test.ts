/**
 * The fake Dropbox's wire, as raw HTTP: the error bodies and statuses Dropbox documents, so that adapters tested
 * against the fake meet what the real service sends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDropboxFake, type DropboxFake } from './index.ts';

let fake: DropboxFake;
let token: string;
beforeEach(async () => {
  fake = await startDropboxFake();
  token = fake.issueTokens().accessToken;
});
afterEach(async () => {
  await fake.close();
});

function rpc(route: string, arg: unknown, bearer: string | null = token): Promise<Response> {
  return fetch(`${fake.urls.api}/2/${route}`, {
    method: 'POST',
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), 'content-type': 'application/json' },
    body: JSON.stringify(arg),
  });
}

function upload(path: string, mode: unknown, body: string): Promise<Response> {
  return fetch(`${fake.urls.content}/2/files/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'dropbox-api-arg': JSON.stringify({ path, mode, autorename: false, strict_conflict: true }) },
    body,
  });
}

describe('fake Dropbox wire', () => {
  it('answers conflicts of upload and delete_v2 with the nested error unions', async () => {
    const file = fake.putFile('/a.md', 'theirs');
    const conflict = await upload('/a.md', { '.tag': 'update', update: '0123456789abc' }, 'mine');
    expect(conflict.status).toBe(409);
    const body = (await conflict.json()) as { error_summary: string; error: Record<string, unknown> };
    expect(body.error_summary).toMatch(/^path\/conflict\/file\/\.+$/);
    expect(body.error).toMatchObject({ '.tag': 'path', reason: { '.tag': 'conflict', conflict: { '.tag': 'file' } } });
    const stale = await rpc('files/delete_v2', { path: '/a.md', parent_rev: '0123456789abc' });
    expect(await stale.json()).toMatchObject({ error: { '.tag': 'path_write', path_write: { '.tag': 'conflict', conflict: { '.tag': 'file' } } } });
    const missing = await rpc('files/get_metadata', { path: '/nothing.md' });
    expect(missing.status).toBe(409);
    expect(await missing.json()).toMatchObject({ error: { '.tag': 'path', path: { '.tag': 'not_found' } } });
    expect(fake.file('/a.md')?.rev).toBe(file.rev);
  });

  it('answers authentication failures as Dropbox does: 400 without a header, 401 with a tagged AuthError', async () => {
    const none = await rpc('files/list_folder', { path: '' }, null);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('Must provide HTTP header "Authorization"');
    expect((await (await rpc('files/list_folder', { path: '' }, 'sl.unknown')).json()) as object).toMatchObject({ error: { '.tag': 'invalid_access_token' } });
    fake.expireAccessTokens();
    const expired = await rpc('files/list_folder', { path: '' });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ error_summary: expect.stringMatching(/^expired_access_token\//), error: { '.tag': 'expired_access_token' } });
  });

  it('rate limits with Retry-After and a RateLimitError, then serves again', async () => {
    fake.rateLimitNext(1, 2);
    const limited = await rpc('files/list_folder', { path: '' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toEqual({ error_summary: 'too_many_requests/..', error: { reason: { '.tag': 'too_many_requests' }, retry_after: 2 } });
    expect((await rpc('files/list_folder', { path: '' })).status).toBe(200);
  });

  it('refuses the root as "/", unknown fields, unescaped header characters and a bad Content-Type', async () => {
    expect(await (await rpc('files/list_folder', { path: '/' })).text()).toContain('Specify the root folder as an empty string');
    expect((await rpc('files/list_folder', { path: '', colour: 'blue' })).status).toBe(400);
    const raw = await fetch(`${fake.urls.content}/2/files/download`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'dropbox-api-arg': '{"path":"/\u00fc.md"}' },
    });
    expect(raw.status).toBe(400);
    const typed = await fetch(`${fake.urls.api}/2/files/list_folder`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: '{"path":""}' });
    expect(typed.status).toBe(400);
  });

  it('lists a folder recursively with the folder itself first, and reports a deleted folder once', async () => {
    fake.putFile('/Notes/Sub/a.md', 'a');
    const listed = (await (await rpc('files/list_folder', { path: '/notes', recursive: true })).json()) as { entries: Array<{ '.tag': string; path_display: string }>; cursor: string };
    expect(listed.entries.map((entry) => [entry['.tag'], entry.path_display])).toEqual([['folder', '/Notes'], ['folder', '/Notes/Sub'], ['file', '/Notes/Sub/a.md']]);
    fake.remove('/Notes/Sub');
    const changes = (await (await rpc('files/list_folder/continue', { cursor: listed.cursor })).json()) as { entries: Array<{ '.tag': string; path_display: string }> };
    expect(changes.entries).toEqual([{ '.tag': 'deleted', name: 'Sub', path_lower: '/notes/sub', path_display: '/Notes/Sub' }]);
    expect(fake.trashed('/Notes/Sub/a.md')?.text).toBe('a');
  });
});
