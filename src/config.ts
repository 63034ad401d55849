import { z } from 'zod';
import { MediaConfigError, parseMediaConfig, type MediaConfig } from './config-media.ts';
import { ModelConfigError, parseModelConfig, type ModelConfig } from './config-model.ts';

/** Thrown when the environment holds an invalid setting; the message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();

const EnvSchema = z.object({
  PORT: port.default(8787),
  KGATE_HOST: z.string().min(1).default('127.0.0.1'),
  KGATE_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .refine((value) => !/[?#]/.test(value), 'must not contain a query or fragment')
    .optional(),
  KGATE_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection URL')
    .optional(),
  KGATE_DB_POOL_SIZE: positiveInt.max(1000).default(10),
  KGATE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KGATE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  KGATE_OAUTH_ALLOW_PRIVATE_CLIENT_METADATA: z.enum(['true', 'false', '1', '0']).default('false'),
  // Unset keeps the default of src/surfaces/http/server-limits.ts, where each limit's reason is written down.
  // Keep-alive: at least a second (0 would mean "never time out" to Node), at most an hour.
  KGATE_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).optional(),
  KGATE_MAX_CONNECTIONS: positiveInt.max(1_000_000).optional(),
  // Unset: no metrics endpoint. It has its own port so that it is never reachable where the API is published.
  KGATE_METRICS_PORT: port.optional(),
  KGATE_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  // Note bodies kept in memory for reads, in MiB; 0 keeps none (docs/operations.md, "Memory").
  KGATE_NOTE_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(32),
  // One hosted vault's canvases and attachments together, in MiB (docs/vaults.md); 0 stores none.
  KGATE_VAULT_FILES_MB: z.coerce.number().int().min(0).max(1_048_576).default(1024),
  // How many reverse proxies stand in front of the gateway (docs/operations.md, "Behind a reverse proxy"); `true` is
  // one. Off by default: X-Forwarded-For is then ignored, since anyone can send it.
  KGATE_TRUST_PROXY: z
    .string()
    .regex(/^(true|false|[0-9])$/, 'must be true, false, or the number of proxies in front of the gateway (0 to 9)')
    .default('false'),
  // Outgoing mail (docs/operations.md, "E-mail"): invitation links are e-mailed only when both are set.
  KGATE_SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL').optional(),
  KGATE_SMTP_FROM: z.string().min(3).max(320).optional(),
  // Remote mappings (docs/providers.md): the keys provider tokens are sealed under, and each provider's OAuth
  // application and addresses. A provider without a client id cannot be connected.
  KGATE_PROVIDER_TOKEN_KEYS: z.string().min(1).optional(),
  KGATE_PROVIDERS_ALLOW_PRIVATE: z.enum(['true', 'false', '1', '0']).default('false'),
  KGATE_SYNC_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
  // The automation gateway (docs/automation.md): how often the gateway moves automation on by itself (0: never; then
  // only POST /api/dev/automation/process does), and, for development only, webhook receivers on private addresses.
  KGATE_AUTOMATION_PROCESS_MS: z.coerce.number().int().min(0).max(3_600_000).default(2_000),
  KGATE_WEBHOOKS_ALLOW_PRIVATE: z.enum(['true', 'false', '1', '0']).default('false'),
  /** Google Classroom's API origin for delegated education connections (tests point it at the fake server). */
  KGATE_CLASSROOM_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  ...providerVariables('DRIVE'),
  ...providerVariables('DROPBOX'),
  ...providerVariables('GITHUB'),
});

/** One provider's settings: its OAuth application, and addresses that default to the real service. */
function providerVariables<P extends 'DRIVE' | 'DROPBOX' | 'GITHUB'>(prefix: P) {
  const url = z.url({ protocol: /^https?$/ }).optional();
  return {
    [`KGATE_${prefix}_CLIENT_ID`]: z.string().min(1).max(512).optional(),
    [`KGATE_${prefix}_CLIENT_SECRET`]: z.string().min(1).max(512).optional(),
    [`KGATE_${prefix}_API_URL`]: url,
    [`KGATE_${prefix}_CONTENT_URL`]: url,
    [`KGATE_${prefix}_AUTHORIZE_URL`]: url,
    [`KGATE_${prefix}_TOKEN_URL`]: url,
    [`KGATE_${prefix}_REVOKE_URL`]: url,
  } as Record<`KGATE_${P}_${'CLIENT_ID' | 'CLIENT_SECRET' | 'API_URL' | 'CONTENT_URL' | 'AUTHORIZE_URL' | 'TOKEN_URL' | 'REVOKE_URL'}`, z.ZodOptional<z.ZodString>>;
}

/** A provider's settings as configured: its OAuth application and the addresses that override the real service's. */
export interface ProviderConfig {
  clientId: string;
  clientSecret: string;
  urls: { api?: string; content?: string; authorize?: string; token?: string; revoke?: string };
}

/** The typed configuration of one kgate process, parsed once at start-up. */
export interface Config {
  port: number;
  host: string;
  /**
   * Public base URL without a trailing slash, e.g. `http://localhost:8787`. Undefined only with `PORT=0` and no
   * KGATE_BASE_URL: the port is known after binding, so use `publicBaseUrl` then.
   */
  baseUrl: string | undefined;
  database: { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string; poolSize: number };
  logLevel: z.infer<typeof EnvSchema>['KGATE_LOG_LEVEL'];
  shutdownGraceMs: number;
  /** Operator overrides of the HTTP server's limits; undefined keeps the default. */
  http: {
    /** How long an idle keep-alive connection stays open; pair it with the load balancer's idle timeout. */
    keepAliveTimeoutMs: number | undefined;
    /** Most connections open at once. */
    maxConnections: number | undefined;
  };
  /** `GET /metrics` on its own port (docs/operations.md); undefined: not served. */
  metrics: { host: string; port: number } | undefined;
  /** Bytes of note bodies a gateway keeps in memory for reads (KGATE_NOTE_CACHE_MB). */
  noteCacheBytes: number;
  /** Bytes one hosted vault's canvases and attachments may take together (KGATE_VAULT_FILES_MB). */
  vaultFileBytes: number;
  /**
   * How many reverse proxies in front of the gateway append to X-Forwarded-For (KGATE_TRUST_PROXY); 0: the client
   * address is the socket's remote address and the header is ignored. Sign-in and registration throttles use it.
   */
  trustedProxies: number;
  /** The SMTP server that e-mails invitation links (KGATE_SMTP_URL and KGATE_SMTP_FROM); undefined: no mail is sent. */
  mail: { url: string; from: string } | undefined;
  oauth: {
    /**
     * Development only: fetch OAuth client ID metadata documents from loopback and private addresses. Off by default,
     * so that a client_id URL cannot make the server reach into its own network (SSRF).
     */
    allowPrivateClientMetadata: boolean;
  };
  /** Where private media is kept (KGATE_MEDIA_STORE, KGATE_MEDIA_*; docs/education.md, "Private audio media"). */
  media: MediaConfig;
  /** The model behind the education generation endpoints (KGATE_MODEL_*; docs/models.md); undefined: none. */
  model: ModelConfig | undefined;
  /** The automation gateway (docs/automation.md). */
  automation: {
    /** KGATE_AUTOMATION_PROCESS_MS: the background processing interval; 0: only POST /process moves automation on. */
    processIntervalMs: number;
    /** KGATE_WEBHOOKS_ALLOW_PRIVATE: development only, deliver webhooks to loopback and private addresses (still https). */
    allowPrivateWebhooks: boolean;
  };
  /** Remote mappings (docs/providers.md). */
  providers: {
    /** KGATE_PROVIDER_TOKEN_KEYS: `id:base64key` entries, the first seals; undefined: no provider can be connected. */
    tokenKeys: string | undefined;
    /** Development and tests only: reach providers on loopback or private addresses and over plain http. */
    allowPrivate: boolean;
    syncIntervalMs: number;
    drive: ProviderConfig | undefined;
    dropbox: ProviderConfig | undefined;
    github: ProviderConfig | undefined;
    /** KGATE_CLASSROOM_API_URL: Classroom's API origin for delegated education connections; default Google's. */
    classroomApi: string | undefined;
  };
}

function providerConfig(e: Readonly<Record<string, unknown>>, prefix: 'DRIVE' | 'DROPBOX' | 'GITHUB'): ProviderConfig | undefined {
  const text = (name: string): string | undefined => (typeof e[name] === 'string' ? e[name] : undefined);
  const clientId = text(`KGATE_${prefix}_CLIENT_ID`);
  const clientSecret = text(`KGATE_${prefix}_CLIENT_SECRET`);
  if (clientId === undefined || clientSecret === undefined) return undefined;
  const urls: ProviderConfig['urls'] = {};
  for (const [field, name] of [['api', 'API'], ['content', 'CONTENT'], ['authorize', 'AUTHORIZE'], ['token', 'TOKEN'], ['revoke', 'REVOKE']] as const) {
    const value = text(`KGATE_${prefix}_${name}_URL`);
    if (value !== undefined) urls[field] = value.replace(/\/+$/, '');
  }
  return { clientId, clientSecret, urls };
}

function describeIssue(issue: z.core.$ZodIssue, env: Record<string, string | undefined>): string {
  const variable = String(issue.path[0] ?? 'environment');
  const raw = env[variable];
  // Never echo a database or SMTP URL: it may carry a password.
  const secret = variable === 'DATABASE_URL' || variable === 'KGATE_SMTP_URL' || variable === 'KGATE_PROVIDER_TOKEN_KEYS' || variable.endsWith('_CLIENT_SECRET');
  const shown = raw === undefined || secret ? '' : ` (got ${JSON.stringify(raw)})`;
  return `${variable}: ${issue.message}${shown}`;
}

/** The public base URL: the configured one, or the address the server actually bound (`PORT=0`). */
export function publicBaseUrl(config: Config, boundUrl: string): string {
  return config.baseUrl ?? boundUrl.replace('//127.0.0.1:', '//localhost:');
}

/**
 * Parses the environment into a Config. Empty strings count as unset. Throws ConfigError naming every invalid
 * variable, so that start-up stops with one clear message.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${describeIssue(issue, present)}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  let media: MediaConfig;
  let model: ModelConfig | undefined;
  try {
    media = parseMediaConfig(present, e.DATABASE_URL ? undefined : e.KGATE_DATA_DIR);
    model = parseModelConfig(present);
  } catch (error) {
    if (error instanceof MediaConfigError || error instanceof ModelConfigError) throw new ConfigError(`Invalid configuration:\n${error.message.split('\n').map((line) => `  ${line}`).join('\n')}`);
    throw error;
  }
  return {
    media,
    model,
    port: e.PORT,
    host: e.KGATE_HOST,
    baseUrl: e.KGATE_BASE_URL
      ? e.KGATE_BASE_URL.replace(/\/+$/, '')
      : e.PORT === 0
        ? undefined
        : `http://localhost:${e.PORT}`,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL, poolSize: e.KGATE_DB_POOL_SIZE }
      : { kind: 'pglite', dataDir: e.KGATE_DATA_DIR },
    logLevel: e.KGATE_LOG_LEVEL,
    shutdownGraceMs: e.KGATE_SHUTDOWN_GRACE_MS,
    http: { keepAliveTimeoutMs: e.KGATE_KEEP_ALIVE_TIMEOUT_MS, maxConnections: e.KGATE_MAX_CONNECTIONS },
    metrics: e.KGATE_METRICS_PORT === undefined ? undefined : { host: e.KGATE_METRICS_HOST, port: e.KGATE_METRICS_PORT },
    noteCacheBytes: e.KGATE_NOTE_CACHE_MB * 1024 * 1024,
    vaultFileBytes: e.KGATE_VAULT_FILES_MB * 1024 * 1024,
    trustedProxies: e.KGATE_TRUST_PROXY === 'true' ? 1 : e.KGATE_TRUST_PROXY === 'false' ? 0 : Number(e.KGATE_TRUST_PROXY),
    mail: e.KGATE_SMTP_URL ? { url: e.KGATE_SMTP_URL, from: e.KGATE_SMTP_FROM ?? 'kgate <kgate@localhost>' } : undefined,
    oauth: { allowPrivateClientMetadata: e.KGATE_OAUTH_ALLOW_PRIVATE_CLIENT_METADATA === 'true' || e.KGATE_OAUTH_ALLOW_PRIVATE_CLIENT_METADATA === '1' },
    automation: {
      processIntervalMs: e.KGATE_AUTOMATION_PROCESS_MS,
      allowPrivateWebhooks: e.KGATE_WEBHOOKS_ALLOW_PRIVATE === 'true' || e.KGATE_WEBHOOKS_ALLOW_PRIVATE === '1',
    },
    providers: {
      tokenKeys: e.KGATE_PROVIDER_TOKEN_KEYS,
      allowPrivate: e.KGATE_PROVIDERS_ALLOW_PRIVATE === 'true' || e.KGATE_PROVIDERS_ALLOW_PRIVATE === '1',
      syncIntervalMs: e.KGATE_SYNC_INTERVAL_MS,
      drive: providerConfig(e, 'DRIVE'),
      dropbox: providerConfig(e, 'DROPBOX'),
      github: providerConfig(e, 'GITHUB'),
      classroomApi: e.KGATE_CLASSROOM_API_URL?.replace(/\/+$/, ''),
    },
  };
}
