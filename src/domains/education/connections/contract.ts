/**
 * Delegated provider connections (spec 4.7): a product, for its installation's customer, connects Google and makes
 * bounded Drive and Classroom round trips. This file holds what the rest of the module shares: the services and the
 * least-privilege Google scopes each needs, the bounds, and the shapes answered to products (never a token).
 */
import { z } from 'zod';
import type { ProviderBudget, ProviderUrls } from '../../providers/index.ts';

/** The one provider of delegated connections today. */
export type ConnectionProvider = 'google';

/** What a product may ask a connection for. */
export const ConnectionServiceSchema = z.enum(['drive', 'classroom']);
/** See ConnectionServiceSchema. */
export type ConnectionService = z.infer<typeof ConnectionServiceSchema>;

/** Per-file Drive access: only the files the app created or the user picked in Google Picker. */
export const DRIVE_FILE_SCOPE = 'https://www.googleapis.com/auth/drive.file';
/** The teacher's courses, read only. */
export const CLASSROOM_COURSES_SCOPE = 'https://www.googleapis.com/auth/classroom.courses.readonly';
/** Rosters, read only (names; e-mail addresses need classroom.profile.emails, which is never asked for). */
export const CLASSROOM_ROSTERS_SCOPE = 'https://www.googleapis.com/auth/classroom.rosters.readonly';
/** Coursework of the classes the user teaches: creating assignments and reading submissions. */
export const CLASSROOM_COURSEWORK_SCOPE = 'https://www.googleapis.com/auth/classroom.coursework.students';

/** The Google scopes each service asks for: the least that does its round trips. */
export const SERVICE_SCOPES: Readonly<Record<ConnectionService, readonly string[]>> = {
  drive: [DRIVE_FILE_SCOPE],
  classroom: [CLASSROOM_COURSES_SCOPE, CLASSROOM_ROSTERS_SCOPE, CLASSROOM_COURSEWORK_SCOPE],
};

/** Every scope kgate may ask Google for here; a granted scope outside this list is not recorded. */
export const KNOWN_SCOPES: readonly string[] = [...SERVICE_SCOPES.drive, ...SERVICE_SCOPES.classroom];

/** Google's OAuth application and where Google is reached (settings; local fakes in tests). */
export interface GoogleConnectionSettings {
  clientId: string;
  clientSecret: string;
  /** Drive's API origin and Google's authorization, token and revocation endpoints. */
  urls: ProviderUrls;
  /** Classroom's API origin (`https://classroom.googleapis.com`). */
  classroomApi: string;
}

/** How long a started authorization can be completed. */
export const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;
/** Longest opaque state a product may have echoed back to its return target. */
export const MAX_CLIENT_STATE_LENGTH = 512;

/** Largest file a product writes to Drive in one request. */
export const MAX_DRIVE_WRITE_BYTES = 4 * 1024 * 1024;

/** Ceilings of a bounded Drive import; a product may ask for less. Wall time is the server's alone. */
export const DRIVE_IMPORT_CEILINGS = {
  maxFiles: 100,
  maxBytes: 4 * 1024 * 1024,
  maxDepth: 5,
  maxRequests: 250,
  wallMs: 30_000,
} as const;

/** Budgets of the other round trips (requests include retries and a token refresh). */
export const ROUND_TRIP_BUDGETS = {
  /** One Drive create or update: an id, the upload, the version check, retries. */
  driveWrite: { maxRequests: 12, maxBytes: MAX_DRIVE_WRITE_BYTES + 256 * 1024, wallMs: 20_000 },
  /** One Classroom page (courses, roster, submissions), with its course checks. */
  classroomRead: { maxRequests: 10, maxBytes: 2 * 1024 * 1024, wallMs: 15_000 },
  /** One assignment creation, with the lookup that makes it retry-safe. */
  classroomWrite: { maxRequests: 12, maxBytes: 2 * 1024 * 1024, wallMs: 20_000 },
  /** Revoking the grant at Google on disconnect. */
  revoke: { maxRequests: 2, maxBytes: 64 * 1024, wallMs: 10_000 },
} as const satisfies Record<string, ProviderBudget>;

/** A connection as a product sees it: never a token. */
export const ConnectionViewSchema = z.object({
  id: z.uuid(),
  provider: z.literal('google'),
  status: z.enum(['active', 'revoked']),
  services: z.object({
    drive: z.boolean().describe('drive.file was granted'),
    classroom: z.boolean().describe('all three Classroom scopes were granted'),
  }),
  scopes: z.array(z.string()).describe('The Google scopes actually granted'),
  connectedAt: z.iso.datetime().nullable(),
  updatedAt: z.iso.datetime(),
  lastError: z.string().nullable(),
});
/** See ConnectionViewSchema. */
export type ConnectionView = z.infer<typeof ConnectionViewSchema>;

/** Whose connection a call is about: the installation and its customer, from the resolved chain. */
export interface ConnectionOwner {
  installationId: string;
  customerAccountId: string;
  productId: string;
}

/** The services whose every scope is in `scopes`. */
export function grantedServices(scopes: readonly string[]): Record<ConnectionService, boolean> {
  const has = (service: ConnectionService) => SERVICE_SCOPES[service].every((scope) => scopes.includes(scope));
  return { drive: has('drive'), classroom: has('classroom') };
}
