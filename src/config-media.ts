import { z } from 'zod';

/**
 * Where private media is kept (docs/operations.md, "Private media"): in the database (the default, on either engine),
 * in a directory, or in an S3-compatible object store.
 */
export type MediaConfig =
  | { store: 'database' }
  | { store: 'directory'; dir: string }
  | {
      store: 's3';
      s3: {
        endpoint: string;
        bucket: string;
        region: string;
        accessKeyId: string;
        secretAccessKey: string;
        sessionToken: string | undefined;
        prefix: string;
        addressing: 'path' | 'virtual';
        timeoutMs: number;
      };
    };

/** The settings' variables; the secret ones are never shown in a message. */
const MediaEnvSchema = z.object({
  KGATE_MEDIA_STORE: z.enum(['database', 'directory', 's3']).default('database'),
  KGATE_MEDIA_DIR: z.string().min(1).optional(),
  KGATE_MEDIA_S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  KGATE_MEDIA_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3 to 63 lowercase letters, digits, dots, hyphens)')
    .optional(),
  KGATE_MEDIA_S3_REGION: z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be a region name such as us-east-1').default('us-east-1'),
  KGATE_MEDIA_S3_ACCESS_KEY_ID: z.string().min(1).max(256).optional(),
  KGATE_MEDIA_S3_SECRET_ACCESS_KEY: z.string().min(1).max(512).optional(),
  KGATE_MEDIA_S3_SESSION_TOKEN: z.string().min(1).max(4096).optional(),
  KGATE_MEDIA_S3_PREFIX: z
    .string()
    .regex(/^[\w./-]{0,200}$/, 'must be letters, digits and . _ - / (at most 200)')
    .default(''),
  KGATE_MEDIA_S3_ADDRESSING: z.enum(['path', 'virtual']).default('path'),
  KGATE_MEDIA_S3_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
});

const SECRET = new Set(['KGATE_MEDIA_S3_SECRET_ACCESS_KEY', 'KGATE_MEDIA_S3_SESSION_TOKEN', 'KGATE_MEDIA_S3_ACCESS_KEY_ID']);

/** An invalid media setting; its message names every variable at fault, one a line, and never a secret's value. */
export class MediaConfigError extends Error {
  override readonly name = 'MediaConfigError';
}

/**
 * The media settings of an environment (empty strings already dropped). `dataDir` is the embedded database's
 * directory, under which a directory store keeps `media/` when KGATE_MEDIA_DIR is not set; with a database server
 * there is none, and a directory store needs KGATE_MEDIA_DIR.
 */
export function parseMediaConfig(env: Readonly<Record<string, string | undefined>>, dataDir: string | undefined): MediaConfig {
  const parsed = MediaEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new MediaConfigError(
      parsed.error.issues
        .map((issue) => {
          const variable = String(issue.path[0]);
          const raw = env[variable];
          return `${variable}: ${issue.message}${raw === undefined || SECRET.has(variable) ? '' : ` (got ${JSON.stringify(raw)})`}`;
        })
        .join('\n'),
    );
  }
  const e = parsed.data;
  if (e.KGATE_MEDIA_STORE === 'database') return { store: 'database' };
  if (e.KGATE_MEDIA_STORE === 'directory') {
    const dir = e.KGATE_MEDIA_DIR ?? (dataDir === undefined ? undefined : `${dataDir.replace(/\/+$/, '')}/media`);
    if (dir === undefined) throw new MediaConfigError('KGATE_MEDIA_DIR: is required for KGATE_MEDIA_STORE=directory with a database server (DATABASE_URL)');
    return { store: 'directory', dir };
  }
  const missing = (['KGATE_MEDIA_S3_ENDPOINT', 'KGATE_MEDIA_S3_BUCKET', 'KGATE_MEDIA_S3_ACCESS_KEY_ID', 'KGATE_MEDIA_S3_SECRET_ACCESS_KEY'] as const).filter((name) => e[name] === undefined);
  if (missing.length > 0) throw new MediaConfigError(missing.map((name) => `${name}: is required for KGATE_MEDIA_STORE=s3`).join('\n'));
  return {
    store: 's3',
    s3: {
      endpoint: e.KGATE_MEDIA_S3_ENDPOINT!.replace(/\/+$/, ''),
      bucket: e.KGATE_MEDIA_S3_BUCKET!,
      region: e.KGATE_MEDIA_S3_REGION,
      accessKeyId: e.KGATE_MEDIA_S3_ACCESS_KEY_ID!,
      secretAccessKey: e.KGATE_MEDIA_S3_SECRET_ACCESS_KEY!,
      sessionToken: e.KGATE_MEDIA_S3_SESSION_TOKEN,
      prefix: e.KGATE_MEDIA_S3_PREFIX,
      addressing: e.KGATE_MEDIA_S3_ADDRESSING,
      timeoutMs: e.KGATE_MEDIA_S3_TIMEOUT_MS,
    },
  };
}
