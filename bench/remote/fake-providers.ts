/**
 * The three providers' local fakes (test/fakes/) for the remote mappings benchmark: each started with the OAuth
 * redirect kgate will use registered, its store seeded directly with the benchmark's notes under one root folder (as
 * "another device" writes them, without going through the fake's HTTP API), the settings that point kgate at it, and
 * "another device" editing a note afterwards.
 */
import { randomBytes } from 'node:crypto';
import type { ProviderUrls, RemoteKind } from '../../src/domains/providers/port.ts';
import type { RemoteRootInput } from '../../src/domains/providers/mappings.ts';
import { startDriveFake } from '../../test/fakes/drive/index.ts';
import { startDropboxFake } from '../../test/fakes/dropbox/index.ts';
import { startGithubFake } from '../../test/fakes/github/index.ts';

/** The public base URL kgate runs under in the benchmark: the providers redirect the owner's browser below it. */
export const BENCH_BASE_URL = 'http://localhost:8787';

/** The three kinds, in the order the benchmark measures them. */
export const REMOTE_KINDS: readonly RemoteKind[] = ['drive', 'dropbox', 'github'];

/** One started and seeded fake, seen the same way for every kind. */
export interface SeededFake {
  kind: RemoteKind;
  /** What the owner types to map the seeded folder (remoteMappings.create's root). */
  root: RemoteRootInput;
  /** KGATE_<KIND>_* settings that point kgate at this fake. */
  env: Record<string, string>;
  /** Another device rewrites the note at a path below the root (one change at the provider each). */
  edit(path: string, content: string): void;
  /** Requests the fake has received so far (OAuth endpoints included). */
  requests(): number;
  close(): Promise<void>;
}

/** The redirect URI kgate sends to a provider (connections service: `{base}/account/connections/{kind}/callback`). */
export function callbackOf(kind: RemoteKind): string {
  return `${BENCH_BASE_URL}/account/connections/${kind}/callback`;
}

function settings(kind: RemoteKind, fake: { clientId: string; clientSecret: string; urls: ProviderUrls }): Record<string, string> {
  const prefix = `KGATE_${kind.toUpperCase()}`;
  return {
    [`${prefix}_CLIENT_ID`]: fake.clientId,
    [`${prefix}_CLIENT_SECRET`]: fake.clientSecret,
    [`${prefix}_API_URL`]: fake.urls.api,
    [`${prefix}_CONTENT_URL`]: fake.urls.content,
    [`${prefix}_AUTHORIZE_URL`]: fake.urls.authorize,
    [`${prefix}_TOKEN_URL`]: fake.urls.token,
    [`${prefix}_REVOKE_URL`]: fake.urls.revoke,
  };
}

// Each fake keeps its own defaults for page sizes (Drive 1,000 files a page, Dropbox pages bounded by kgate's limit,
// GitHub trees whole): the benchmark measures what a real account of that size costs, not paging stress.

async function drive(notes: ReadonlyArray<{ path: string; content: string }>): Promise<SeededFake> {
  const fake = await startDriveFake({ redirectUris: [callbackOf('drive')] });
  fake.device.folder('Notes');
  for (const note of notes) fake.device.put(`Notes/${note.path}`, note.content);
  return {
    kind: 'drive',
    root: { folder: 'Notes' },
    env: settings('drive', fake),
    edit: (path, content) => void fake.device.put(`Notes/${path}`, content),
    requests: () => fake.requests.length,
    close: () => fake.close(),
  };
}

async function dropbox(notes: ReadonlyArray<{ path: string; content: string }>): Promise<SeededFake> {
  const fake = await startDropboxFake({ redirectUris: [callbackOf('dropbox')] });
  fake.createFolder('/Notes');
  for (const note of notes) fake.putFile(`/Notes/${note.path}`, note.content);
  return {
    kind: 'dropbox',
    root: { folder: 'Notes' },
    env: settings('dropbox', fake),
    edit: (path, content) => void fake.putFile(`/Notes/${path}`, content),
    requests: () => fake.requests.length,
    close: () => fake.close(),
  };
}

async function github(notes: ReadonlyArray<{ path: string; content: string }>): Promise<SeededFake> {
  const fake = await startGithubFake({ callbackUrl: callbackOf('github') });
  // The fake starts with octo-owner/notes (branch main); the vault arrives in one commit, as a first push would.
  fake.commit(Object.fromEntries(notes.map((note) => [`vault/${note.path}`, note.content])), { message: 'Add the vault' });
  return {
    kind: 'github',
    root: { folder: 'vault', repository: 'octo-owner/notes', branch: 'main' },
    env: settings('github', fake),
    // One commit per edit, as another device pushing each change.
    edit: (path, content) => void fake.putFile(`vault/${path}`, content),
    requests: () => fake.requests.length,
    close: () => fake.close(),
  };
}

/** Starts the fake of one kind with `notes` seeded below its root folder. */
export function startSeededFake(kind: RemoteKind, notes: ReadonlyArray<{ path: string; content: string }>): Promise<SeededFake> {
  return kind === 'drive' ? drive(notes) : kind === 'dropbox' ? dropbox(notes) : github(notes);
}

/**
 * The environment of a kgate process that can connect the fakes: a fresh token sealing key, private addresses and
 * plain http allowed (the fakes listen on 127.0.0.1), each fake's OAuth application and addresses, and a sync poll
 * interval of a day, so that no sync step starts by itself while the benchmark measures something else.
 */
export function providerEnv(fakes: readonly SeededFake[]): Record<string, string> {
  const env: Record<string, string> = {
    KGATE_BASE_URL: BENCH_BASE_URL,
    KGATE_PROVIDER_TOKEN_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    KGATE_PROVIDERS_ALLOW_PRIVATE: 'true',
    KGATE_SYNC_INTERVAL_MS: String(86_400_000),
  };
  for (const fake of fakes) Object.assign(env, fake.env);
  return env;
}
