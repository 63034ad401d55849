import { createProviderHttp } from '../../src/app/provider-http.ts';
import { createProviderCall } from '../../src/domains/providers/call.ts';
import type { AdapterRegistry, CallFactory } from '../../src/domains/providers/contract.ts';
import { driveAdapter } from '../../src/domains/providers/drive/adapter.ts';
import { dropboxAdapter } from '../../src/domains/providers/dropbox/adapter.ts';
import { githubAdapter } from '../../src/domains/providers/github/adapter.ts';
import type { ProviderAdapter, ProviderRequest, ProviderUrls, RemoteKind, RemoteRoot } from '../../src/domains/providers/port.ts';
import { FOLDER_MIME, startDriveFake, type DriveFake } from '../fakes/drive/index.ts';
import { startDropboxFake } from '../fakes/dropbox/index.ts';
import { startGithubFake } from '../fakes/github/index.ts';

/**
 * One provider's local fake seen the same way for every kind, so that a sync scenario is written once: the mapping's
 * root, a token the fake issued, "another device" changing files below the root, what the provider holds there, and
 * the faults the fake injects.
 */
export interface RemoteFake {
  kind: RemoteKind;
  adapter: ProviderAdapter;
  urls: ProviderUrls;
  root: RemoteRoot;
  /** The access token the fake issued for the mapping's connection. */
  accessToken: string;
  /** Another device writes a file below the root (folders created). */
  put(path: string, content: string | Buffer): void;
  /** Another device deletes a file below the root (to the provider's trash, or in a commit). */
  remove(path: string): void;
  /** Another device renames or moves a file below the root. */
  move(from: string, to: string): void;
  /** Every file below the root as the provider holds it now, by path below the root. */
  files(): Map<string, Buffer>;
  /** True for a request that downloads a file's content. */
  isDownload(request: ProviderRequest): boolean;
  /** Another device makes two files whose paths collide in kgate (same name in Drive, case variants in Git); absent for Dropbox. */
  duplicate?(path: string): void;
  /** Another device trashes one of several files at a path (Drive only). */
  removeOne?(path: string): void;
  /** The owner removes the application's access at the provider: every token stops working. */
  revokeAll(): void;
  /** The next `n` API requests answer a server error. */
  failNext(n: number, status?: number): void;
  /** The next `n` API requests are rate limited with this Retry-After. */
  rateLimitNext(n: number, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

/** The adapters of all three kinds (the registry the composition root builds from settings). */
export const ADAPTERS: AdapterRegistry = { drive: driveAdapter, dropbox: dropboxAdapter, github: githubAdapter };

const http = createProviderHttp({ allowPrivateAddresses: true, allowInsecureHttp: true });

/**
 * A call factory over started fakes, as the connections service builds calls: each mapping's connection maps to a
 * fake's urls and token; retry waits are skipped (they are the fakes' Retry-After, never measured here).
 */
export function fakeCallFactory(byConnection: Map<string, RemoteFake>, onRequest?: (fake: RemoteFake, request: ProviderRequest) => void | Promise<void>): CallFactory {
  return (mapping, budget) => {
    const fake = byConnection.get(mapping.connectionId);
    if (!fake) return Promise.reject(new Error(`no fake for connection ${mapping.connectionId}`));
    const token = () => Promise.resolve(fake.accessToken);
    return Promise.resolve(createProviderCall({
      urls: fake.urls,
      // A test may arm one of the fake's own faults just before a request it picks out is sent, or hold the request.
      http: async (request) => {
        await onRequest?.(fake, request);
        return http(request);
      },
      adapter: fake.adapter,
      token: { current: token, refresh: token },
      budget,
      sleep: () => Promise.resolve(),
    }));
  };
}

function below(prefix: string, path: string): string | undefined {
  return path.toLowerCase().startsWith(prefix.toLowerCase()) ? path.slice(prefix.length) : undefined;
}

async function dropboxFake(): Promise<RemoteFake> {
  const fake = await startDropboxFake({ pageSize: 7 });
  fake.createFolder('/Notes');
  const at = (path: string) => `/Notes/${path}`;
  return {
    kind: 'dropbox',
    adapter: dropboxAdapter,
    urls: fake.urls,
    root: { kind: 'dropbox', path: '/Notes' },
    accessToken: fake.issueTokens().accessToken,
    put: (path, content) => void fake.putFile(at(path), content),
    remove: (path) => fake.remove(at(path)),
    move: (from, to) => fake.move(at(from), at(to)),
    isDownload: (request) => request.url.includes('/2/files/download'),
    files: () =>
      new Map(
        fake.paths().flatMap((path) => {
          const rest = below('/Notes/', path);
          return rest === undefined ? [] : [[rest, fake.file(path)!.content] as const];
        }),
      ),
    revokeAll: () => fake.revokeAll(),
    failNext: (n, status) => fake.failNext(n, status),
    rateLimitNext: (n, seconds) => fake.rateLimitNext(n, seconds),
    close: () => fake.close(),
  };
}

function driveFiles(fake: DriveFake, folderId: string, prefix = ''): Array<[string, Buffer]> {
  return fake.store.children(folderId).flatMap((child): Array<[string, Buffer]> => {
    if (child.trashed) return [];
    const path = `${prefix}${child.name}`;
    return child.mimeType === FOLDER_MIME ? driveFiles(fake, child.id, `${path}/`) : [[path, child.content]];
  });
}

async function driveFake(): Promise<RemoteFake> {
  const fake = await startDriveFake({ maxPageSize: 7 });
  const folder = fake.device.folder('Notes');
  const at = (path: string) => `Notes/${path}`;
  return {
    kind: 'drive',
    adapter: driveAdapter,
    urls: fake.urls,
    root: { kind: 'drive', folderId: folder.id, path: 'Notes' },
    accessToken: fake.issueTokens().accessToken,
    put: (path, content) => void fake.device.put(at(path), content),
    remove: (path) => void fake.device.trash(at(path)),
    move: (from, to) => void fake.device.move(at(from), at(to)),
    files: () => new Map(driveFiles(fake, folder.id)),
    isDownload: (request) => request.url.includes('alt=media'),
    duplicate(path) {
      fake.device.add(at(path), 'one');
      fake.device.add(at(path), 'two');
    },
    removeOne(path) {
      const [first] = fake.device.find(at(path));
      if (!first) throw new Error(`nothing at ${path}`);
      fake.store.updateMetadata(first, { trashed: true });
    },
    revokeAll: () => fake.revokeAll(),
    failNext: (n, status) => fake.failNext(n, status),
    rateLimitNext: (n, seconds) => fake.rateLimitNext(n, seconds, '429'),
    close: () => fake.close(),
  };
}

async function githubFake(): Promise<RemoteFake> {
  const fake = await startGithubFake({ compareFileLimit: 300 });
  fake.createRepository('octo-owner', 'notes');
  const target = { owner: 'octo-owner', repo: 'notes', branch: 'main' };
  const at = (path: string) => `vault/${path}`;
  return {
    kind: 'github',
    adapter: githubAdapter,
    urls: fake.urls,
    root: { kind: 'github', owner: 'octo-owner', repo: 'notes', branch: 'main', folder: 'vault' },
    accessToken: fake.issueTokens().accessToken,
    put: (path, content) => void fake.putFile(at(path), content, target),
    remove: (path) => void fake.deleteFile(at(path), target),
    move: (from, to) => void fake.moveFile(at(from), at(to), target),
    isDownload: (request) => request.method === 'GET' && request.url.includes('/contents/') && !request.url.includes('kgate-device-encrypted'),
    duplicate(path) {
      fake.commit({ [at(path)]: 'one', [at(path.toUpperCase().replace(/\.MD$/, '.md'))]: 'two' }, target);
    },
    files() {
      const flat = fake.state.store.flatten(fake.head(target).tree);
      return new Map(
        [...flat.values()].flatMap((file) => {
          const rest = below('vault/', file.path);
          return rest === undefined ? [] : [[rest, fake.state.store.blobs.get(file.sha)!] as const];
        }),
      );
    },
    revokeAll: () => fake.revokeAll(),
    failNext: (n, status) => fake.failNext(n, status),
    rateLimitNext: (n, seconds) => fake.rateLimitNext(n, seconds, '429'),
    close: () => fake.close(),
  };
}

/** Starts the fake of one provider kind, with a root folder to map and small pages (so that paging is exercised). */
export function startRemoteFake(kind: RemoteKind): Promise<RemoteFake> {
  return kind === 'drive' ? driveFake() : kind === 'dropbox' ? dropboxFake() : githubFake();
}
