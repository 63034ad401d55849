import type { Config, ProviderConfig } from '../config.ts';
import type { AdapterRegistry, ProviderKindSettings, ProviderUrls, RemoteKind, TokenSealer } from '../domains/providers/index.ts';
import { createTokenSealer, driveAdapter, dropboxAdapter, githubAdapter, parseTokenKeys } from '../domains/providers/index.ts';

/** The adapters by kind. */
export const ADAPTERS: AdapterRegistry = { drive: driveAdapter, dropbox: dropboxAdapter, github: githubAdapter };

/** Where each provider is reached when no setting says otherwise: the real services. */
export const DEFAULT_PROVIDER_URLS: Readonly<Record<RemoteKind, ProviderUrls>> = {
  drive: {
    api: 'https://www.googleapis.com',
    content: 'https://www.googleapis.com',
    authorize: 'https://accounts.google.com/o/oauth2/v2/auth',
    token: 'https://oauth2.googleapis.com/token',
    revoke: 'https://oauth2.googleapis.com/revoke',
  },
  dropbox: {
    api: 'https://api.dropboxapi.com',
    content: 'https://content.dropboxapi.com',
    authorize: 'https://www.dropbox.com/oauth2/authorize',
    token: 'https://api.dropboxapi.com/oauth2/token',
    revoke: 'https://api.dropboxapi.com/2/auth/token/revoke',
  },
  github: {
    api: 'https://api.github.com',
    content: 'https://api.github.com',
    authorize: 'https://github.com/login/oauth/authorize',
    token: 'https://github.com/login/oauth/access_token',
    // GitHub revokes a grant through its API (DELETE /applications/{client_id}/grant), not a revocation endpoint.
    revoke: 'https://api.github.com',
  },
};

/** What the composition root builds the providers domain from. */
export interface ProviderWiring {
  kinds: Partial<Record<RemoteKind, ProviderKindSettings>>;
  sealer: TokenSealer | undefined;
  allowPrivate: boolean;
  syncIntervalMs: number;
  /** Classroom's API origin for delegated education connections (docs/education.md); undefined: Google's. */
  classroomApi?: string | undefined;
}

function kindSettings(kind: RemoteKind, config: ProviderConfig | undefined): ProviderKindSettings | undefined {
  if (!config) return undefined;
  return { clientId: config.clientId, clientSecret: config.clientSecret, urls: { ...DEFAULT_PROVIDER_URLS[kind], ...config.urls } };
}

/** The providers' settings from the configuration; a bad token key setting stops start-up with a clear message. */
export function providerWiring(config: Config['providers']): ProviderWiring {
  let sealer: TokenSealer | undefined;
  if (config.tokenKeys !== undefined) {
    try {
      sealer = createTokenSealer(parseTokenKeys(config.tokenKeys));
    } catch (error) {
      throw new Error(`KGATE_PROVIDER_TOKEN_KEYS: ${(error as Error).message}`);
    }
  }
  const kinds: Partial<Record<RemoteKind, ProviderKindSettings>> = {};
  for (const kind of ['drive', 'dropbox', 'github'] as const) {
    const settings = kindSettings(kind, config[kind]);
    if (settings) kinds[kind] = settings;
  }
  return { kinds, sealer, allowPrivate: config.allowPrivate, syncIntervalMs: config.syncIntervalMs, classroomApi: config.classroomApi };
}
