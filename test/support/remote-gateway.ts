import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import type { ProviderConnection, RemoteKind, RemoteRootInput, SyncStepOutcome } from '../../src/domains/providers/index.ts';
import type { Mapping } from '../../src/domains/vaults/index.ts';
import { DRIVE_READONLY_SCOPE, startDriveFake, type DriveFake } from '../fakes/drive/index.ts';
import { startDropboxFake, type DropboxFake } from '../fakes/dropbox/index.ts';
import { startGithubFake, type GithubFake } from '../fakes/github/index.ts';
import type { AppFlavor } from '../fakes/github/state.ts';
import { createOwner, type Owner } from './fixtures.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { callTool, connectMcpClient, type Structured } from './mcp-client.ts';
import { startProviderProxy, type ProviderProxy, type ProxiedRequest } from './provider-proxy.ts';
import { restClient, type RestClient } from './rest-client.ts';

/** The three remote kinds, for `describe.each`. */
export const REMOTE_KINDS: readonly RemoteKind[] = ['drive', 'dropbox', 'github'];

/** The gateway's public base in these tests: the providers redirect the owner's browser to its callback there. */
export const BASE_URL = 'http://kgate.test';
const callbackOf = (kind: RemoteKind) => `${BASE_URL}/account/connections/${kind}/callback`;

/**
 * One provider's fake behind a proxy, seen the same way for every kind: the root an owner maps, "another device"
 * changing files below it, what the provider holds there, and the faults and grant controls the fake offers.
 * Paths are below the mapped root.
 */
export interface ProviderFixture {
  kind: RemoteKind;
  /** kgate reaches the fake only through this proxy: every request is seen, and a device may act before one. */
  proxy: ProviderProxy;
  /** The root as the owner types it when creating a mapping. */
  root: RemoteRootInput;
  /** The root of a folder below `root` (paths of its notes are then below that folder). */
  rootAt(folder: string): RemoteRootInput;
  /** The KGATE_<KIND>_* settings of the gateway. */
  env: Record<string, string>;
  /** Another device writes a file (folders created). */
  put(path: string, content: string): void;
  /** What the provider holds at a path now, or null. */
  content(path: string): string | null;
  /** The provider's revision of the file at a path now (Drive version, Dropbox rev, Git blob sha), or null. */
  revision(path: string): string | null;
  /** True when the file was deleted the recoverable way: in the trash (Drive, Dropbox), or in a kgate commit (GitHub). */
  deletedRecoverably(path: string): boolean;
  /** True for a request that downloads a file's bytes. */
  isDownload(request: ProxiedRequest): boolean;
  /**
   * Makes another device run `action` after kgate's next live read of a note has completed and before its
   * conditional write reaches the provider (Drive: before the version re-check; Dropbox: before the upload; GitHub:
   * before the contents PUT).
   */
  raceNextWrite(action: () => void): void;
  /** The user at the provider grants read access only on the next consent screen (`false`: as asked again). */
  grantReadOnlyNext(on: boolean): void;
  expireAccessTokens(): void;
  /** The user removes the application's access at the provider: every grant ends. */
  revokeAll(): void;
  /** Grants the provider still honours. */
  liveGrants(): number;
  /** The next `n` API requests are rate limited, asking to wait `seconds`. */
  rateLimitNext(n: number, seconds: number): void;
  close(): Promise<void>;
}

function proxied(urls: Record<string, string>, fakeOrigin: string, proxy: ProviderProxy): Record<string, string> {
  return Object.fromEntries(Object.entries(urls).map(([field, url]) => [field, url.replace(fakeOrigin, proxy.origin)]));
}

function settingsOf(prefix: string, fake: { clientId: string; clientSecret: string }, urls: Record<string, string>): Record<string, string> {
  return {
    [`KGATE_${prefix}_CLIENT_ID`]: fake.clientId,
    [`KGATE_${prefix}_CLIENT_SECRET`]: fake.clientSecret,
    [`KGATE_${prefix}_API_URL`]: urls.api!,
    [`KGATE_${prefix}_CONTENT_URL`]: urls.content!,
    [`KGATE_${prefix}_AUTHORIZE_URL`]: urls.authorize!,
    [`KGATE_${prefix}_TOKEN_URL`]: urls.token!,
    [`KGATE_${prefix}_REVOKE_URL`]: urls.revoke!,
  };
}

async function driveFixture(): Promise<ProviderFixture> {
  const fake: DriveFake = await startDriveFake({ redirectUris: [callbackOf('drive')] });
  fake.device.folder('Notes');
  const origin = new URL(fake.urls.api).origin;
  const proxy = await startProviderProxy(origin);
  const at = (path: string) => `Notes/${path}`;
  const isMetadataRead = (request: ProxiedRequest) =>
    request.method === 'GET' && request.path.startsWith('/drive/v3/files/') && request.query.get('alt') !== 'media';
  return {
    kind: 'drive',
    proxy,
    root: { folder: 'Notes' },
    rootAt: (folder) => ({ folder: `Notes/${folder}` }),
    env: settingsOf('DRIVE', fake, proxied({ ...fake.urls }, origin, proxy)),
    put: (path, content) => void fake.device.put(at(path), content),
    content: (path) => fake.file(at(path))?.content.toString('utf8') ?? null,
    revision: (path) => {
      const file = fake.file(at(path));
      return file ? String(file.version) : null;
    },
    deletedRecoverably: (path) => fake.file(at(path)) === undefined && fake.trashed(at(path)).length > 0,
    isDownload: (request) => request.query.get('alt') === 'media',
    raceNextWrite(action) {
      // A live read is: folder lookups, the download, then the version read again after it. The write that follows
      // begins with the version re-check: the device acts just before that one.
      proxy.beforeNext(
        (request) => request.query.get('alt') === 'media',
        () => proxy.beforeNext(isMetadataRead, () => proxy.beforeNext(isMetadataRead, action)),
      );
    },
    grantReadOnlyNext(on) {
      fake.consent = on ? { grantOnly: [DRIVE_READONLY_SCOPE] } : {};
    },
    expireAccessTokens: () => fake.expireAccessTokens(),
    revokeAll: () => fake.revokeAll(),
    liveGrants: () => fake.activeGrants(),
    rateLimitNext: (n, seconds) => fake.rateLimitNext(n, seconds, '403'),
    close: async () => {
      await proxy.close();
      await fake.close();
    },
  };
}

async function dropboxFixture(): Promise<ProviderFixture> {
  const fake: DropboxFake = await startDropboxFake({ redirectUris: [callbackOf('dropbox')] });
  fake.createFolder('/Notes');
  const origin = new URL(fake.urls.api).origin;
  const proxy = await startProviderProxy(origin);
  const at = (path: string) => `/Notes/${path}`;
  return {
    kind: 'dropbox',
    proxy,
    root: { folder: 'Notes' },
    rootAt: (folder) => ({ folder: `Notes/${folder}` }),
    env: settingsOf('DROPBOX', fake, proxied({ ...fake.urls }, origin, proxy)),
    put: (path, content) => void fake.putFile(at(path), content),
    content: (path) => fake.file(at(path))?.text ?? null,
    revision: (path) => fake.file(at(path))?.rev ?? null,
    deletedRecoverably: (path) => fake.file(at(path)) === null && fake.trashed(at(path)) !== null,
    isDownload: (request) => request.path.endsWith('/2/files/download'),
    raceNextWrite: (action) => proxy.beforeNext((request) => request.path.endsWith('/2/files/upload'), action),
    grantReadOnlyNext(on) {
      fake.setConsent(on ? { grantOnly: ['account_info.read', 'files.metadata.read', 'files.content.read'] } : {});
    },
    expireAccessTokens: () => fake.expireAccessTokens(),
    revokeAll: () => fake.revokeAll(),
    liveGrants: () => fake.liveGrants(),
    rateLimitNext: (n, seconds) => fake.rateLimitNext(n, seconds),
    close: async () => {
      await proxy.close();
      await fake.close();
    },
  };
}

async function githubFixture(flavor: AppFlavor): Promise<ProviderFixture> {
  const fake: GithubFake = await startGithubFake({ flavor, callbackUrl: callbackOf('github') });
  // Public, so that a grant without `repo` (read only, for an OAuth App) still reads it.
  fake.createRepository('octo-owner', 'team-notes', { private: false });
  const target = { owner: 'octo-owner', repo: 'team-notes', branch: 'main' };
  fake.commit({ 'README.md': '# Team notes\n' }, { ...target, message: 'Initial commit' });
  const proxy = await startProviderProxy(fake.origin);
  const at = (path: string) => `vault/${path}`;
  return {
    kind: 'github',
    proxy,
    root: { folder: 'vault', repository: 'octo-owner/team-notes', branch: 'main' },
    rootAt: (folder) => ({ folder: `vault/${folder}`, repository: 'octo-owner/team-notes', branch: 'main' }),
    env: settingsOf('GITHUB', fake, proxied({ ...fake.urls }, fake.origin, proxy)),
    put: (path, content) => void fake.putFile(at(path), content, target),
    content: (path) => fake.file(at(path), target)?.content ?? null,
    revision: (path) => fake.file(at(path), target)?.sha ?? null,
    deletedRecoverably: (path) => fake.file(at(path), target) === null && /^Delete .*\(kgate\)$/.test(fake.head(target).message),
    isDownload: (request) => request.method === 'GET' && request.path.includes('/contents/'),
    raceNextWrite: (action) => proxy.beforeNext((request) => request.method === 'PUT' && request.path.includes('/contents/'), action),
    grantReadOnlyNext(on) {
      // An OAuth App asks for `repo` either way; the user may grant less (a public repository stays readable).
      fake.setConsent({ scopes: on ? ['read:user'] : null });
    },
    expireAccessTokens: () => fake.expireAccessTokens(),
    revokeAll: () => fake.revokeAll(),
    liveGrants: () => new Set([...fake.state.accessTokens.values()].filter((entry) => entry.live && !entry.grant.revoked).map((entry) => entry.grant)).size,
    rateLimitNext: (n, seconds) => fake.rateLimitNext(n, seconds),
    close: async () => {
      await proxy.close();
      await fake.close();
    },
  };
}

/** Starts the fake of one kind behind its proxy (GitHub: an OAuth App unless told). */
export function startProviderFixture(kind: RemoteKind, options: { githubFlavor?: AppFlavor } = {}): Promise<ProviderFixture> {
  return kind === 'drive' ? driveFixture() : kind === 'dropbox' ? dropboxFixture() : githubFixture(options.githubFlavor ?? 'oauth-app');
}

/** A gateway configured for the given fixtures (token keys, private addresses allowed, each provider's settings). */
export function startRemoteGateway(fixtures: readonly ProviderFixture[]): Promise<TestGateway> {
  return startTestGateway({
    env: {
      KGATE_BASE_URL: BASE_URL,
      KGATE_PROVIDER_TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      KGATE_PROVIDERS_ALLOW_PRIVATE: 'true',
      // Caught-up mappings are not polled again during a test file: the tests sync when they mean to.
      KGATE_SYNC_INTERVAL_MS: '86400000',
      ...Object.assign({}, ...fixtures.map((fixture) => fixture.env)),
    },
  });
}

/**
 * Connects a provider the real way: the domain starts the authorization, the owner's browser follows it to the
 * provider (which answers the consent at once and redirects back with a code), and the callback completes it.
 */
export async function connectProvider(gateway: TestGateway, accountId: string, kind: RemoteKind, write: boolean): Promise<ProviderConnection> {
  const { authorizationUrl } = await gateway.services.connections.start(accountId, kind, { write });
  const answer = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(answer.status, await answer.text()).toBe(302);
  const back = new URL(answer.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(callbackOf(kind));
  const param = (name: string) => back.searchParams.get(name) ?? undefined;
  return gateway.services.connections.complete(accountId, kind, { code: param('code'), state: param('state'), error: param('error') });
}

/**
 * Syncs a mapping until it caught up. The gateway's maintenance loop may hold the mapping's lease for a moment
 * (a new mapping is due at once): then this waits for it and steps again.
 */
export async function syncMapping(gateway: TestGateway, mappingId: string): Promise<SyncStepOutcome> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const outcome = await gateway.services.sync.syncNow(mappingId, { maxSteps: 20 });
    if (!outcome) throw new Error(`${mappingId} is not a remote mapping`);
    if (outcome.caughtUp) return outcome;
    if (outcome.error) return outcome;
    if (!outcome.ran) await delay(50);
  }
  throw new Error(`${mappingId} did not catch up`);
}

/** An account as its clients see it: the owner, an MCP SDK client and a REST client, both with its personal access token. */
export interface RemoteCaller {
  owner: Owner;
  mcp: Client;
  api: RestClient;
  /** Calls an MCP tool: whether it failed, and its structured content. */
  call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: Structured }>;
}

/** A new owner with its clients. */
export async function newRemoteCaller(gateway: TestGateway, label: string): Promise<RemoteCaller> {
  const owner = await createOwner(gateway.services, label);
  const mcp = await connectMcpClient(gateway.url, owner.token);
  return { owner, mcp, api: restClient(gateway, owner.token), call: (name, args) => callTool(mcp, name, args) };
}

/** Requests the proxy forwarded while `work` ran. */
export async function requestsDuring(fixture: ProviderFixture, work: () => Promise<unknown>): Promise<ProxiedRequest[]> {
  const before = fixture.proxy.requests.length;
  await work();
  return fixture.proxy.requests.slice(before);
}

/** Every kind's fixture, a gateway over them, an owner and a stranger: where the remote mapping test files start. */
export interface RemoteSuite {
  fixtures: Map<RemoteKind, ProviderFixture>;
  gateway: TestGateway;
  owner: RemoteCaller;
  stranger: RemoteCaller;
  close(): Promise<void>;
}

/** Starts a RemoteSuite (each fake behind its proxy, GitHub as an OAuth App). */
export async function startRemoteSuite(): Promise<RemoteSuite> {
  const fixtures = new Map<RemoteKind, ProviderFixture>();
  for (const kind of REMOTE_KINDS) fixtures.set(kind, await startProviderFixture(kind));
  const gateway = await startRemoteGateway([...fixtures.values()]);
  const owner = await newRemoteCaller(gateway, 'owner');
  const stranger = await newRemoteCaller(gateway, 'stranger');
  return {
    fixtures,
    gateway,
    owner,
    stranger,
    async close() {
      await owner.mcp.close();
      await stranger.mcp.close();
      await gateway.stop();
      for (const fixture of fixtures.values()) await fixture.close();
    },
  };
}

/** The owner's connection with write access, and the stranger's, granted read access only although it asked for write. */
export async function connectOwnerAndStranger(suite: RemoteSuite, kind: RemoteKind): Promise<{ connection: ProviderConnection; readOnly: ProviderConnection }> {
  const fixture = suite.fixtures.get(kind)!;
  const connection = await connectProvider(suite.gateway, suite.owner.owner.accountId, kind, true);
  expect(connection).toMatchObject({ status: 'active', canRead: true, canWrite: true });
  fixture.grantReadOnlyNext(true);
  const readOnly = await connectProvider(suite.gateway, suite.stranger.owner.accountId, kind, true);
  fixture.grantReadOnlyNext(false);
  expect(readOnly).toMatchObject({ status: 'active', canRead: true, canWrite: false });
  return { connection, readOnly };
}

/** A remote mapping of `caller`'s workspace under one of its connections, named after its kind. */
export function createRemoteMapping(
  suite: RemoteSuite,
  kind: RemoteKind,
  caller: RemoteCaller,
  connectionId: string,
  name: string,
  options: { pullOnly?: boolean; allowMcpNoteChanges?: boolean; deviceEncrypted?: boolean; root?: ProviderFixture['root'] } = {},
): Promise<Mapping> {
  const { root, ...flags } = options;
  return suite.gateway.services.remoteMappings.create(caller.owner.accountId, {
    workspaceId: caller.owner.workspaceId,
    connectionId,
    name: `${kind} ${name}`,
    root: root ?? suite.fixtures.get(kind)!.root,
    ...flags,
  });
}

/** Syncs every mapping until it caught up, each without an error: then nothing is due while a test counts requests. */
export async function syncEvery(gateway: TestGateway, mappings: readonly Mapping[]): Promise<void> {
  for (const mapping of mappings) expect((await syncMapping(gateway, mapping.id)).error).toBeUndefined();
}
